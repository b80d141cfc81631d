/*
 * cmd_alloc.c - `drabench alloc`: allocate the claims of manifests with the reference allocator
 * and print them with status.allocation, or run conformance cases (`--test`, DESIGN §6).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc/alloc.h"
#include "alloc/invariants.h"
#include "alloc/fast.h"
#include "alloc/explain.h"
#include "cli.h"
#include "conformance.h"
#include "groups.h"
#include "manifest.h"
#include "reasons.h"
#include "taintrule.h"
#include "walk.h"

static const char help[] =
    "drabench alloc - allocate ResourceClaims with the reference allocator, or run conformance cases\n"
    "\n"
    "Usage: drabench alloc -f FILE|DIR... [options]\n"
    "       drabench alloc --test FILE|DIR...\n"
    "\n"
    "Reads Kubernetes manifests (DeviceClasses, ResourceSlices, ResourceClaims, templates, Pods,\n"
    "Nodes), allocates the claims of every pending pod in order (a template claim becomes\n"
    "<pod>-<claim>, or is that claim if it exists), trying the nodes in order unless --node is\n"
    "given; a node where a claim of the pod allocated already may not be used is skipped, as in\n"
    "the scheduler. Prints the claims with status.allocation, one line per pod and a summary on\n"
    "stderr. Without pods, every unallocated claim is allocated. With --test, every file is an\n"
    "AllocationTest case: one PASS/FAIL line per case, invariants checked on every allocation.\n"
    "\n"
    "Options:\n"
    "  -f, --file PATH         manifest file or directory (repeatable)\n"
    "  -n, --node NAME         allocate on this node only (default: try nodes in order)\n"
    "  -r, --release R         release profile 1.34 | 1.35 | 1.36 | 1.37 | 1.38-pre (default 1.37;\n"
    "                          1.38-pre follows Kubernetes master, see `drabench version`)\n"
    "  -F, --feature GATE=B    feature gate override, e.g. DRADeviceTaints=false (repeatable)\n"
    "  -b, --upstream-bugs     reproduce the known upstream allocator bugs (default: fixed)\n"
    "  -A, --allocator NAME    reference | fast | both (default reference); with both the\n"
    "                          reference allocates and the fast allocator, on its own state,\n"
    "                          is asked the same claims in the same order and must decide\n"
    "                          identically: stderr gets the number of decisions compared and\n"
    "                          the speed ratio reference/fast of the allocate calls; the first\n"
    "                          differing decision stops the run with exit 3, naming it, its\n"
    "                          pod, claims and node, and the difference (no claims printed);\n"
    "                          --test with both: reference checks, and the fast allocator\n"
    "                          (with and without pruning) and the placement engine on the\n"
    "                          case's node (its direct answer where it has one) must decide\n"
    "                          identically (same allocateOne unpruned); with fast, expected\n"
    "                          allocateOne counts are upper bounds\n"
    "  -S, --max-steps N       search budget per allocate call in allocateOne calls; beyond it\n"
    "                          the outcome is Fatal \"filter operation aborted\" (default\n"
    "                          1000000 for the reference allocator, none for fast, whose\n"
    "                          pruning a budget turns off; 0 = no limit; a case's\n"
    "                          spec.maxSteps wins)\n"
    "  -o, --output FMT        yaml | json (default yaml)\n"
    "  -t, --test              run conformance cases from the paths given as arguments\n"
    "  -v, --verbose           --test: also print the outcome, allocateOne calls and allocate time\n"
    "                          of passing cases (with --explain: the reason on the case's node)\n"
    "  -x, --explain           --test: also run `drabench explain`'s reasoning on the case's node\n"
    "                          and every Node of the case; it must agree with the allocator (same\n"
    "                          outcome, allocated devices passing every check, reasons confirmed\n"
    "                          by brute force on small instances), or the case fails\n"
    "  -h, --help              show this help\n"
    "\n"
    "Examples:\n"
    "  drabench alloc -f ../shared/real-manifests/dra-example-driver --node node-1\n"
    "  drabench alloc -f cluster.yaml --release 1.35 --feature DRAPartitionableDevices=true -o json\n"
    "  drabench alloc -f cluster.yaml --allocator both > /dev/null\n"
    "  drabench alloc --test corpora/conformance\n"
    "\n"
    "Exit status: 0 ok (all cases pass), 1 a case failed (or a pod could not be allocated for\n"
    "a reason other than unsatisfiable), 2 usage error or invalid input, 3 an invariant was\n"
    "violated or the reference and fast allocators decided differently, 4 environment error.\n";

typedef struct opts {
    dra_conf_opts_t c; /* allocator, features, budget, verbose (shared with --test) */
    const char *node;
    bool json;
} opts_t;

static const char *nz(const char *s)
{
    return s ? s : "";
}

typedef struct plist {
    const char **v; /* borrowed from the walker */
    size_t n, cap;
} plist_t;

static int plist_add(const char *s, void *ud)
{
    plist_t *p = ud;
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 64;
        const char **nv = realloc(p->v, nc * sizeof *nv);
        if (!nv)
            return DRA_ENOMEM;
        p->v = nv;
        p->cap = nc;
    }
    p->v[p->n++] = s;
    return DRA_OK;
}

static const char *const case_suffixes[] = {".yaml", ".yml", NULL};

/* The files below paths (walk.h) into files; walk errors printed. Returns an exit status:
 * 0, 2 (a symbolic-link loop, too deep), 4 (unreadable directory, out of memory). */
static int collect(dra_walk_t *w, plist_t *files, char **paths, int npaths)
{
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    int rc = dra_walk_paths(w, paths, npaths, plist_add, files, &errs);
    int exitc = DRA_EXIT_OK;
    char buf[DRA_DIAG_MSG_MAX + 256];
    for (size_t i = 0; i < errs.count; i++) {
        fprintf(stderr, "drabench alloc: %s\n", dra_diag_format(&errs.items[i], buf, sizeof buf));
        if (errs.items[i].code == DRA_EIO)
            exitc = DRA_EXIT_ENV;
        else if (exitc == DRA_EXIT_OK)
            exitc = DRA_EXIT_USAGE;
    }
    if (rc == DRA_ENOMEM)
        exitc = DRA_EXIT_ENV;
    else if (rc != DRA_OK && exitc == DRA_EXIT_OK)
        exitc = DRA_EXIT_USAGE;
    dra_diag_list_fini(&errs);
    return exitc;
}

/* ---- allocate mode --------------------------------------------------------------------------- */

/* One line on stderr (dra_cli_notef: claim, pod and node names from the manifests are shown
 * terminal-safe - a JSON name can carry an escape sequence). */
#define say(...) dra_cli_notef(stderr, __VA_ARGS__)

/* The state of one `alloc -f` run. */
typedef struct actx {
    const opts_t *o;
    dra_model_t m;
    dra_diag_list_t errs;
    dra_taint_rules_t rules;
    dra_alloc_state_t *st;
    dra_cel_cache_t *cel;
    dra_anyalloc_t al;     /* one allocator */
    dra_conf_pair_t pair;  /* --allocator both: reference (decides) and fast (compared) */
    bool pair_init;
    dra_mgroups_t *mg;     /* PodGroups (groups.h): their pods are scheduled by group cycles */
    dra_group_ctx_t *gctx;
    dra_explainer_t *why;  /* the reasons of an unsatisfiable pod (reasons.h), made on first use */
    dra_claim_t *const *cur_done; /* the pod being placed: its allocated claims (tried_node) */
    uint32_t cur_nd;
    uint32_t nok, nunsat, nerr, nwait;
    int exitc;
} actx_t;

/* Read the manifests below paths into the model (errors printed). Returns an exit status. */
static int load_manifests(actx_t *a, char **paths, int npaths)
{
    plist_t files = {0};
    dra_walk_t walk;
    dra_walk_init(&walk, dra_walk_manifest_suffixes);
    int exitc = collect(&walk, &files, paths, npaths);
    int rc = DRA_OK;
    for (size_t i = 0; exitc == DRA_EXIT_OK && i < files.n && rc != DRA_ENOMEM; i++) {
        int r2 = dra_conf_read_manifest(&a->m, &a->rules, files.v[i], &a->errs);
        rc = rc ? rc : r2;
    }
    free(files.v);
    dra_walk_fini(&walk); /* the model holds its own copies of the file names */
    if (exitc != DRA_EXIT_OK)
        return exitc;
    if (rc == DRA_OK)
        rc = dra_model_imply_nodes(&a->m);
    if (rc) {
        char buf[700];
        for (size_t i = 0; i < a->errs.count; i++)
            fprintf(stderr, "%s\n", dra_diag_format(&a->errs.items[i], buf, sizeof buf));
        return rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
    }
    return DRA_EXIT_OK;
}

/* State, CEL cache, DeviceTaintRules and the allocator(s). Returns an exit status. */
static int setup_allocators(actx_t *a)
{
    const opts_t *o = a->o;
    /* objects the API server would refuse (a 5,000-device slice, a taint value beyond 63
     * characters): alloc still decides on them, as a dry run of what it was given, but says that
     * a cluster could not hold them - run and gen refuse them (dra_scenario_read_manifests) */
    dra_diag_list_t verrs;
    dra_diag_list_init(&verrs);
    int vrc = dra_manifest_validate(&a->m, &verrs);
    if (vrc == DRA_ENOMEM) {
        dra_diag_list_fini(&verrs);
        return DRA_EXIT_ENV;
    }
    if (vrc && verrs.count) {
        char buf[700];
        say("drabench alloc: note: the manifests break %zu rule(s) of the API server (a cluster "
            "would not hold these objects; drabench validate lists them all), first: %s",
            verrs.count, dra_diag_format(&verrs.items[0], buf, sizeof buf));
    }
    dra_diag_list_fini(&verrs);
    if (dra_alloc_state_new(&a->m, &o->c.f, &a->st) || dra_alloc_state_add_model_claims(a->st) ||
        dra_cel_cache_new(&a->cel))
        return DRA_EXIT_ENV;
    if (a->rules.n && dra_taint_rules_enabled(&o->c.f)) {
        dra_diag_t d;
        uint32_t hits = 0;
        int rc = dra_taint_rules_apply(&a->rules, &a->m, a->cel, &o->c.f, &hits, &d);
        if (rc) {
            fprintf(stderr, "drabench alloc: %s\n", rc == DRA_ENOMEM ? dra_strerror(rc) : d.msg);
            return rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
        }
        fprintf(stderr, "%u DeviceTaintRule(s) applied: %u device taint(s) added\n", a->rules.n,
                hits);
    } else if (a->rules.n) {
        fprintf(stderr, "%u DeviceTaintRule(s) ignored: DRADeviceTaintRules is off in release %s "
                        "(--feature DRADeviceTaintRules=true applies them)\n",
                a->rules.n, dra_alloc_release_name((dra_release_t)o->c.f.release));
    }
    /* what the allocator will not use, said where its decisions are printed (validate says it
     * too, but a user of alloc need not run it first) */
    for (uint32_t i = 0; o->c.f.release >= DRA_RELEASE_1_35 && i < a->m.nslices; i++) {
        const dra_slice_t *s = a->m.slices[i];
        if (s->ndevices && s->ncounter_sets)
            say("drabench alloc: note: ResourceSlice %s holds devices and sharedCounters: from "
                "release 1.35 on a slice holds one or the other, so its %u device(s) are not "
                "used (the 1.34 layout: --release 1.34)",
                nz(s->name), s->ndevices);
    }
    dra_alloc_options_t ao = {0};
    ao.max_steps = dra_conf_budget(&o->c, o->c.kind);
    if (o->c.both) {
        if (dra_conf_pair_new(&a->m, &o->c.f, a->st, a->cel, &ao, o->c.max_steps_set, &a->pair))
            return DRA_EXIT_ENV;
        a->pair_init = true;
    } else if (dra_anyalloc_new(o->c.kind, &a->m, &o->c.f, a->st, a->cel, &ao, &a->al)) {
        return DRA_EXIT_ENV;
    }
    return DRA_EXIT_OK;
}

/* --allocator both: the reference and the fast allocator decided differently on node for the
 * claims of podname. Says which decision, which claims and how; exit 3. */
static int report_difference(const actx_t *a, const char *podname, const dra_node_t *node,
                             dra_claim_t *const *batch, uint32_t nb, const char *why)
{
    char names[1024] = "";
    size_t used = 0;
    for (uint32_t k = 0; k < nb && used < sizeof names; k++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s/%s", k ? ", " : "",
                                 nz(batch[k]->namespace_), nz(batch[k]->name));
    say("drabench alloc: decision #%llu differs (%s on node %s, claim%s %s): reference vs fast: %s",
        (unsigned long long)a->pair.decisions, podname, nz(node->name), nb > 1 ? "s" : "", names,
        why);
    return DRA_EXIT_CORRECTNESS;
}

/* The nodes tried: only --node when given, and not those where an allocated claim of the pod
 * may not be used (a->cur_done, skipped before any allocation). */
static int tried_node(void *ud, uint32_t node, dra_why_t *w)
{
    const actx_t *a = ud;
    (void)w;
    if (a->o->node && strcmp(a->o->node, nz(a->m.nodes[node]->name)) != 0)
        return -1;
    bool ok = true;
    uint32_t which = 0;
    char err[DRA_DIAG_MSG_MAX];
    if (dra_conf_available_on(a->cur_done, a->cur_nd, a->m.nodes[node], &ok, &which, err,
                              sizeof err) != DRA_OK || !ok)
        return -1;
    return 0;
}

/* Why batch fits none of the nodes tried: the dominant per-node reasons (reasons.h, the reference
 * allocator's explain mode) as "2 nodes: ...; 1 node: ..." into buf. */
static int unsat_reasons(actx_t *a, dra_claim_t *const *batch, uint32_t nb, char *buf, size_t len)
{
    buf[0] = 0;
    if (!a->why) {
        dra_alloc_options_t ao = {0};
        int rc = dra_explainer_new(&a->m, &a->o->c.f, a->st, a->cel, &ao, &a->why);
        if (rc)
            return rc;
    }
    dra_node_reasons_t nr;
    int rc = dra_node_reasons(a->why, &a->m, batch, nb, tried_node, a, UINT32_MAX, &nr);
    if (rc == DRA_OK && nr.nodes)
        dra_node_reasons_text(&nr, 3, buf, len);
    return rc;
}

/* Place pod podname: its claims todo[0..nt) are allocated together, done[0..nd) are allocated
 * already. The nodes are tried in order (only --node when given); a node is skipped, as the
 * scheduler's DynamicResources Filter does ("resourceclaim not available on the node"), unless
 * every allocation of done[] may be used there; on the first node that takes the rest, commit.
 * A pod whose claims are all allocated goes to the first node they allow. One line on stderr.
 * Returns an exit status: OK (also for an unsatisfiable or failed pod, counted), 3 (a decision
 * differs, or an invariant was violated: then a->exitc is 3 and allocation goes on), 4. */
static int place_batch(actx_t *a, dra_claim_t **batch, uint32_t nb, dra_claim_t **done,
                       uint32_t nd, const char *podname)
{
    const opts_t *o = a->o;
    dra_outcome_t last = DRA_OUTCOME_UNSATISFIABLE;
    char msg[DRA_DIAG_MSG_MAX] = "";
    uint32_t tried = 0, unavailable = 0;
    const dra_claim_t *blocker = NULL;
    for (uint32_t ni = 0; ni < a->m.nnodes; ni++) {
        const dra_node_t *node = a->m.nodes[ni];
        if (o->node && strcmp(o->node, nz(node->name)) != 0)
            continue;
        tried++;
        bool ok = true;
        uint32_t which = 0;
        if (dra_conf_available_on(done, nd, node, &ok, &which, msg, sizeof msg) != DRA_OK) {
            last = DRA_OUTCOME_FATAL; /* a selector that cannot be evaluated: msg says why */
            break;
        }
        if (!ok) {
            unavailable++;
            if (!blocker)
                blocker = done[which];
            continue;
        }
        if (nb == 0) { /* nothing left to allocate: the node the allocated claims allow */
            last = DRA_OUTCOME_ALLOCATED;
            say("%s: allocated on %s (its claim%s allocated already)", podname, nz(node->name),
                nd > 1 ? "s were" : " was");
            break;
        }
        dra_alloc_outcome_t out;
        bool differs = false;
        char why[DRA_DIAG_MSG_MAX * 2 + 64];
        int rc = o->c.both ? dra_conf_pair_allocate(&a->pair, node, batch, nb, &a->m.arena, &out,
                                                    &differs, why, sizeof why)
                           : dra_anyalloc_allocate(&a->al, node, batch, nb, &a->m.arena, &out);
        if (rc)
            return DRA_EXIT_ENV;
        if (differs)
            return report_difference(a, podname, node, batch, nb, why);
        last = out.kind;
        snprintf(msg, sizeof msg, "%s", out.msg);
        if (out.kind == DRA_OUTCOME_ALLOCATED) {
            dra_inv_report_t irep;
            if (dra_inv_check(&a->m, &o->c.f, a->st, a->cel, node, batch, out.allocations, nb,
                              &irep) == DRA_OK &&
                irep.nviolations) {
                say("drabench alloc: %s: invariant violated: %s", podname, irep.first[0]);
                a->exitc = DRA_EXIT_CORRECTNESS;
            }
            for (uint32_t k = 0; k < nb; k++) {
                batch[k]->allocation = out.allocations[k];
                if (dra_alloc_state_commit(a->st, out.allocations[k]))
                    return DRA_EXIT_ENV;
            }
            if (o->c.both && dra_conf_pair_commit_fast(&a->pair))
                return DRA_EXIT_ENV;
            say("%s: allocated on %s", podname, nz(node->name));
            break;
        }
        if (out.kind == DRA_OUTCOME_FATAL)
            break;
    }
    if (tried == 0) {
        a->nerr++;
        say("%s: not placed: no node to try (the manifests hold no Node, and no ResourceSlice "
            "names one)",
            podname);
    } else if (last == DRA_OUTCOME_ALLOCATED) {
        a->nok++;
    } else if (last == DRA_OUTCOME_UNSATISFIABLE && unavailable == tried) {
        a->nunsat++;
        say("%s: unschedulable: resourceclaim %s/%s not available on %s (its allocation's "
            "nodeSelector)",
            podname, nz(blocker->namespace_), nz(blocker->name),
            tried == 1 ? "the node" : "any node");
    } else if (last == DRA_OUTCOME_UNSATISFIABLE) {
        a->nunsat++;
        char why[2048] = "";
        a->cur_done = done;
        a->cur_nd = nd;
        int rc = unsat_reasons(a, batch, nb, why, sizeof why);
        if (rc)
            return DRA_EXIT_ENV;
        if (unavailable)
            say("%s: unsatisfiable on every node tried%s%s (%u skipped: resourceclaim %s/%s not "
                "available there)",
                podname, why[0] ? ": " : "", why, unavailable, nz(blocker->namespace_),
                nz(blocker->name));
        else
            say("%s: unsatisfiable on every node tried%s%s", podname, why[0] ? ": " : "", why);
    } else {
        a->nerr++;
        say("%s: %s: %s", podname, dra_outcome_name(last), msg);
    }
    return DRA_EXIT_OK;
}

/* PodGroups of the inputs (groups.h): notes on stderr (gates that drop them or their fields).
 * Before the allocators: their claims are instantiated into the model. Returns an exit status. */
static int setup_groups(actx_t *a)
{
    dra_diag_list_t notes;
    dra_diag_list_init(&notes);
    int rc = dra_mgroups_new(&a->m, &a->o->c.f, &a->mg, &notes);
    for (size_t i = 0; i < notes.count; i++)
        say("%s", notes.items[i].msg);
    dra_diag_list_fini(&notes);
    if (rc == DRA_OK && dra_mgroups_count(a->mg))
        rc = dra_group_ctx_new(a->m.nnodes, dra_mgroups_max_members(a->mg), &a->gctx);
    return rc == DRA_OK ? DRA_EXIT_OK : rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* One PodGroup's cycle (first-fit over the nodes, or --node); with --allocator both the fast
 * allocator runs the same cycle on its own state and must decide identically. Returns an exit
 * status (3: the decisions differ). */
static int place_group(actx_t *a, uint32_t gi)
{
    const opts_t *o = a->o;
    dra_mgroups_env_t env = {o->c.both ? &a->pair.ref : &a->al, a->st, o->node,
                             DRA_ENGINE_FIRST_FIT, false};
    dra_group_result_t r;
    int64_t t0 = mono_ns();
    int rc = dra_mgroups_schedule(a->mg, gi, &env, a->gctx, &a->m.arena, &r);
    int64_t t1 = mono_ns();
    if (rc)
        return rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
    uint32_t nm = dra_mgroups_members(a->mg, gi);
    const dra_podgroup_t *pg = dra_mgroups_podgroup(a->mg, gi);
    if (o->c.both) {
        dra_mgroups_env_t fenv = {&a->pair.fast, a->pair.fast_state, o->node, DRA_ENGINE_FIRST_FIT,
                                  true};
        dra_group_result_t fr;
        int64_t t2 = mono_ns();
        rc = dra_mgroups_schedule(a->mg, gi, &fenv, a->gctx, &a->m.arena, &fr);
        int64_t t3 = mono_ns();
        if (rc)
            return rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
        a->pair.decisions++;
        a->pair.ref_ns += (uint64_t)(t1 - t0);
        a->pair.fast_ns += (uint64_t)(t3 - t2);
        char why[256];
        if (!dra_group_result_equal(&r, &fr, nm, why, sizeof why)) {
            say("drabench alloc: decision #%llu differs (PodGroup %s/%s): reference vs fast: %s",
                (unsigned long long)a->pair.decisions, nz(pg->namespace_), nz(pg->name), why);
            return DRA_EXIT_CORRECTNESS;
        }
    }
    dra_mgroups_apply(a->mg, gi, &r);
    char line[4096];
    dra_mgroups_describe(a->mg, gi, &r, line, sizeof line);
    say("%s", line);
    a->nok += r.placed;
    uint32_t left = r.pending - r.placed;
    if (r.outcome == DRA_GROUP_ERROR)
        a->nerr += left;
    else if (r.outcome == DRA_GROUP_WAITING)
        a->nwait += left;
    else
        a->nunsat += left;
    return DRA_EXIT_OK;
}

/* The work list: per pod (replica) its claims (dra_conf_pod_claims: allocated ones constrain
 * the node, the others are allocated together); without pods, every unallocated claim on its
 * own. Returns an exit status (stops at 3 only for a differing decision, at 4). */
static int allocate_all(actx_t *a)
{
    dra_claim_t *batch[64], *done[64];
    uint32_t npods = a->m.npods;
    uint32_t nclaims0 = a->m.nclaims;
    if (a->o->node && !dra_model_find_node(&a->m, a->o->node)) {
        say("drabench alloc: --node %s: no such node in the manifests (a Node object, or a "
            "ResourceSlice's nodeName)", a->o->node);
        return DRA_EXIT_USAGE;
    }
    if (a->m.nnodes == 0)
        say("drabench alloc: no nodes: the manifests hold no Node, and no ResourceSlice names "
            "one (nodeName); nothing can be placed");
    dra_claim_t **initial = malloc((nclaims0 ? nclaims0 : 1) * sizeof *initial);
    if (!initial)
        return DRA_EXIT_ENV;
    if (nclaims0)
        memcpy(initial, a->m.claims, nclaims0 * sizeof *initial);
    uint32_t nunits = npods ? 0 : nclaims0;
    for (uint32_t p = 0; p < npods; p++)
        nunits += (uint32_t)(a->m.pods[p]->replicas > 0 ? a->m.pods[p]->replicas : 1);
    uint32_t unit = 0;
    int ret = DRA_EXIT_OK;
    uint8_t *gdone = calloc(a->mg && dra_mgroups_count(a->mg) ? dra_mgroups_count(a->mg) : 1, 1);
    if (!gdone) {
        free(initial);
        return DRA_EXIT_ENV;
    }
    for (uint32_t p = 0; p < (npods ? npods : 1) && unit < nunits && ret == DRA_EXIT_OK; p++) {
        const dra_pod_t *pod = npods ? a->m.pods[p] : NULL;
        int64_t reps = pod ? (pod->replicas > 0 ? pod->replicas : 1) : nclaims0;
        uint32_t gi;
        const char *why;
        dra_mg_pod_t fate = pod && a->mg ? dra_mgroups_pod(a->mg, p, &gi, &why) : DRA_MG_ALONE;
        if (fate == DRA_MG_WAITS) {
            /* never tried: upstream keeps it UnschedulableAndUnresolvable */
            say("%s:%u:%u: %s %s: waits: %s", nz(pod->pos.file), pod->pos.line, pod->pos.column,
                dra_pod_kind_name(pod->kind), nz(pod->name), why);
            a->nwait += (uint32_t)reps;
            unit += (uint32_t)reps;
            continue;
        }
        if (fate == DRA_MG_MEMBER) {
            /* the group's first pod in input order runs the cycle for all of its pods */
            if (!gdone[gi]) {
                gdone[gi] = 1;
                ret = place_group(a, gi);
            }
            unit += (uint32_t)reps;
            continue;
        }
        for (int64_t rep = 0; rep < reps && ret == DRA_EXIT_OK; rep++, unit++) {
            uint32_t nb = 0, nd = 0;
            char podname[300];
            if (!pod) {
                if (initial[rep]->allocation)
                    continue;
                batch[nb++] = initial[rep];
                snprintf(podname, sizeof podname, "claim %s", nz(initial[rep]->name));
            } else {
                if (pod->node_name)
                    continue; /* already bound */
                if (reps > 1)
                    snprintf(podname, sizeof podname, "%s-%lld", nz(pod->name), (long long)rep);
                else
                    snprintf(podname, sizeof podname, "%s", nz(pod->name));
                dra_diag_t d;
                dra_diag_clear(&d);
                int rc = dra_conf_pod_claims(&a->m, pod, podname, batch, &nb, done, &nd, 64, &d);
                if (rc == DRA_ENOMEM) {
                    ret = DRA_EXIT_ENV;
                    break;
                }
                if (rc != DRA_OK) {
                    say("drabench alloc: pod %s: %s", podname, d.msg);
                    a->nerr++;
                    continue;
                }
            }
            ret = place_batch(a, batch, nb, done, nd, podname);
        }
    }
    free(initial);
    free(gdone);
    return ret;
}

/* --allocator both: how many decisions were compared and the speed ratio on stderr. */
static void both_summary(const actx_t *a)
{
    const dra_conf_pair_t *p = &a->pair;
    double ratio = p->fast_ns ? (double)p->ref_ns / (double)p->fast_ns : 0.0;
    fprintf(stderr,
            "both: %llu decisions compared with the fast allocator; allocate calls: reference "
            "%.3f ms, fast %.3f ms, ratio reference/fast %.*fx\n",
            (unsigned long long)p->decisions, (double)p->ref_ns / 1e6, (double)p->fast_ns / 1e6,
            ratio >= 10 ? 0 : 2, ratio);
}

/* The claims (only) as YAML or JSON on stdout, and the summary line. */
static int write_claims(actx_t *a)
{
    dra_model_t outm;
    dra_model_init(&outm);
    for (uint32_t i = 0; i < a->m.nclaims; i++) {
        dra_claim_t *c = dra_model_add_claim(&outm);
        if (!c) {
            dra_model_fini(&outm);
            return DRA_EXIT_ENV;
        }
        *c = *a->m.claims[i];
    }
    const opts_t *o = a->o;
    int rc = o->json ? dra_manifest_write_json(&outm, stdout) : dra_manifest_write_yaml(&outm, stdout);
    dra_model_fini(&outm);
    char waiting[48] = "";
    if (a->nwait)
        snprintf(waiting, sizeof waiting, ", %u waiting", a->nwait);
    fprintf(stderr, "%u allocated, %u unsatisfiable, %u failed%s (release %s, %s allocator%s)\n",
            a->nok, a->nunsat, a->nerr, waiting,
            dra_alloc_release_label((dra_release_t)o->c.f.release),
            dra_alloc_variant_name(dra_alloc_variant(&o->c.f)),
            o->c.f.upstream_bugs ? ", upstream bugs" : "");
    return rc ? DRA_EXIT_ENV : DRA_EXIT_OK;
}

static int run_allocate(const opts_t *o, char **paths, int npaths)
{
    actx_t *a = calloc(1, sizeof *a);
    if (!a)
        return DRA_EXIT_ENV;
    a->o = o;
    dra_model_init(&a->m);
    dra_diag_list_init(&a->errs);
    dra_taint_rules_init(&a->rules);
    int exitc = load_manifests(a, paths, npaths);
    if (exitc == DRA_EXIT_OK)
        exitc = setup_groups(a);
    if (exitc == DRA_EXIT_OK)
        exitc = setup_allocators(a);
    if (exitc == DRA_EXIT_OK) {
        exitc = allocate_all(a);
        if (o->c.both)
            both_summary(a);
    }
    if (exitc == DRA_EXIT_OK) {
        exitc = write_claims(a);
        if (exitc == DRA_EXIT_OK)
            exitc = a->exitc;
        if (exitc == DRA_EXIT_OK && a->nerr)
            exitc = DRA_EXIT_REGRESSION;
    }
    if (a->pair_init)
        dra_conf_pair_free(&a->pair);
    dra_group_ctx_free(a->gctx);
    dra_mgroups_free(a->mg);
    dra_explainer_free(a->why);
    dra_anyalloc_free(&a->al);
    dra_cel_cache_free(a->cel);
    dra_alloc_state_free(a->st);
    dra_taint_rules_fini(&a->rules);
    dra_diag_list_fini(&a->errs);
    dra_model_fini(&a->m);
    free(a);
    return exitc;
}

static int run_tests(const opts_t *o, char **paths, int npaths)
{
    plist_t files = {0};
    dra_walk_t walk;
    dra_walk_init(&walk, case_suffixes);
    int wexit = collect(&walk, &files, paths, npaths);
    if (wexit != DRA_EXIT_OK) {
        free(files.v);
        dra_walk_fini(&walk);
        return wexit;
    }
    int npass = 0, nfail = 0, ninvalid = 0;
    uint32_t ndirect = 0, nexpl = 0, nfallback = 0;
    dra_conf_opts_t co = o->c;
    co.engine_direct = &ndirect;
    co.explain_nodes = &nexpl;
    co.explain_fallback = &nfallback;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t i = 0; i < files.n; i++) {
        int r = dra_conf_run_case(files.v[i], &co, stdout);
        if (r == DRA_CONF_PASS)
            npass++;
        else if (r == DRA_CONF_FAIL)
            nfail++;
        else
            ninvalid++;
    }
    free(files.v);
    dra_walk_fini(&walk);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fflush(stdout);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    if (o->c.both)
        fprintf(stderr, "engine: every case's answer on its node compared; %u answered from the "
                        "engine's columns (direct answers)\n", ndirect);
    if (o->c.explain)
        fprintf(stderr, "explain: %u node(s) checked against the allocator; %u reason(s) the "
                        "search's fallback (\"no combination ...\")\n", nexpl, nfallback);
    fprintf(stderr, "%d passed, %d failed, %d invalid (%.1f ms)\n", npass, nfail, ninvalid, ms);
    if (ninvalid)
        return DRA_EXIT_USAGE;
    return nfail ? DRA_EXIT_REGRESSION : DRA_EXIT_OK;
}

int dra_cmd_alloc(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"file", required_argument, NULL, 'f'},    {"node", required_argument, NULL, 'n'},
        {"release", required_argument, NULL, 'r'}, {"feature", required_argument, NULL, 'F'},
        {"upstream-bugs", no_argument, NULL, 'b'}, {"output", required_argument, NULL, 'o'},
        {"test", no_argument, NULL, 't'},          {"verbose", no_argument, NULL, 'v'},
        {"allocator", required_argument, NULL, 'A'},
        {"max-steps", required_argument, NULL, 'S'},
        {"explain", no_argument, NULL, 'x'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    opts_t o;
    memset(&o, 0, sizeof o);
    dra_alloc_features_init(&o.c.f, DRA_RELEASE_DEFAULT);
    char **files = calloc((size_t)argc + 1, sizeof *files);
    const char **feats = calloc((size_t)argc + 1, sizeof *feats);
    int nfiles = 0, nfeats = 0, c, test = 0, bugs = 0;
    dra_release_t rel = DRA_RELEASE_DEFAULT;
    int ret = DRA_EXIT_OK;
    dra_diag_t d;
    if (!files || !feats) {
        free(files);
        free(feats);
        return DRA_EXIT_ENV;
    }
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:n:r:F:bo:tvxA:S:h", lopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            files[nfiles++] = optarg;
            break;
        case 'n':
            o.node = optarg;
            break;
        case 'r':
            if (dra_alloc_release_parse(optarg, &rel, &d)) {
                ret = dra_cli_usage_error("alloc", "%s", d.msg);
                goto out;
            }
            break;
        case 'F':
            feats[nfeats++] = optarg;
            break;
        case 'b':
            bugs = 1;
            break;
        case 'o':
            if (strcmp(optarg, "json") == 0)
                o.json = true;
            else if (strcmp(optarg, "yaml") != 0) {
                ret = dra_cli_usage_error("alloc", "unknown output format \"%s\" (yaml or json)", optarg);
                goto out;
            }
            break;
        case 't':
            test = 1;
            break;
        case 'v':
            o.c.verbose = true;
            break;
        case 'x':
            o.c.explain = true;
            break;
        case 'S': {
            unsigned long long v;
            if (!dra_io_parse_u64(optarg, &v)) {
                ret = dra_cli_usage_error("alloc", "--max-steps wants a whole number (0 = no "
                                                   "limit), got '%s'", optarg);
                goto out;
            }
            o.c.max_steps = v;
            o.c.max_steps_set = true;
            break;
        }
        case 'A':
            o.c.both = strcmp(optarg, "both") == 0;
            if (!o.c.both && dra_alloc_kind_parse(optarg, &o.c.kind)) {
                ret = dra_cli_usage_error("alloc", "--allocator: reference, fast or both, got '%s'", optarg);
                goto out;
            }
            break;
        case 'h':
            fputs(help, stdout);
            goto out;
        default:
            ret = dra_cli_usage_error("alloc", "unknown option");
            goto out;
        }
    }
    dra_alloc_features_init(&o.c.f, rel);
    o.c.f.upstream_bugs = bugs;
    for (int i = 0; i < nfeats; i++)
        if (dra_alloc_features_set(&o.c.f, feats[i], &d)) {
            ret = dra_cli_usage_error("alloc", "%s", d.msg);
            goto out;
        }
    for (int i = optind; i < argc; i++)
        files[nfiles++] = argv[i];
    if (nfiles == 0) {
        ret = dra_cli_usage_error("alloc", "no input: give -f FILE|DIR (or --test PATH...)");
        goto out;
    }
    ret = test ? run_tests(&o, files, nfiles) : run_allocate(&o, files, nfiles);
out:
    free(files);
    free(feats);
    return ret;
}
