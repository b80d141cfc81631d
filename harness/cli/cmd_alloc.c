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
#include "extres/extres.h"
#include "groups.h"
#include "manifest.h"
#include "reasons.h"
#include "taintrule.h"
#include "walk.h"

static const char help[] =
    "drabench alloc - allocate ResourceClaims with the reference allocator, or run conformance "
    "cases\n"
    "\n"
    "Usage: drabench alloc -f FILE|DIR... [options]\n"
    "       drabench alloc --test FILE|DIR...\n"
    "\n"
    "Reads manifests (DeviceClasses, ResourceSlices, ResourceClaims, templates, Pods, workloads,\n"
    "Nodes) and places every pending pod on the first node (in order, or --node) that passes\n"
    "the node filters (nodeSelector, node affinity, taints) and NodeResourcesFit (the Node's\n"
    "status.allocatable) and allocates, in one call, the pod's claims (a template claim becomes\n"
    "<pod>-<claim>) and the claim the scheduler builds for its extended resources backed by DRA\n"
    "(KEP-5004); a template claim that exists already (an earlier output) is that claim, and a\n"
    "node where a claim of the pod allocated already may not be used is rejected, as in the\n"
    "scheduler. Prints the claims with status.allocation and those Pods with\n"
    "status.extendedResourceClaimStatus; pod inputs not modelled are named on stderr. Without\n"
    "pods, every unallocated claim is allocated. A pod (or claim) no node takes is said with the\n"
    "reasons of the nodes tried, grouped and counted in the words of `drabench explain` (node\n"
    "filters, NodeResourcesFit, then the claims' first reason). A summary goes to stderr. With\n"
    "--test, every file is an AllocationTest case: one PASS/FAIL line per case, the invariants\n"
    "are checked on every allocation.\n"
    "\n";

static const char help_options[] =
    "Options:\n"
    "  -f, --file PATH         manifest file or directory (repeatable)\n"
    "  -n, --node NAME         allocate on this node only (default: try nodes in order)\n"
    "  -r, --release R         release profile 1.34 | 1.35 | 1.36 | 1.37 | 1.38-pre (default "
    "1.37;\n"
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
    "  -v, --verbose           --test: also print the outcome, allocateOne calls and allocate "
    "time\n"
    "                          of passing cases (with --explain: the reason on the case's node)\n"
    "  -x, --explain           --test: also run `drabench explain`'s reasoning on the case's node\n"
    "                          and every Node of the case; it must agree with the allocator (same\n"
    "                          outcome, allocated devices passing every check, reasons confirmed\n"
    "                          by brute force on small instances), or the case fails\n"
    "  -h, --help              show this help\n"
    "\n"
    "Examples:\n"
    "  drabench alloc -f ../shared/real-manifests/dra-example-driver --node node-1\n"
    "  drabench alloc -f cluster.yaml --release 1.35 --feature DRAPartitionableDevices=true -o "
    "json\n"
    "  drabench alloc -f cluster.yaml --allocator both > /dev/null\n"
    "  drabench alloc --test corpora/conformance\n"
    "\n"
    "Exit status: 0 ok (all cases pass), 1 a case failed (or a pod could not be allocated for\n"
    "a reason other than unschedulable), 2 usage error or invalid input, 3 an invariant was\n"
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
    dra_extres_map_t xmap;   /* extended resource names -> DeviceClasses (KEP-5004) */
    dra_node_usage_t *usage; /* per model node: requests of the pods on it */
    dra_pod_req_t *preq;     /* per model pod: its requests */
    dra_arena_t xarena;      /* special claims (a failed attempt's are dropped) */
    bool *claim_used;        /* per model claim (initial ones): a pod refers to it */
    bool *claim_dropped;     /* per model claim: deleted (a stale extended-resource claim) */
    uint32_t nclaims0;
    dra_model_t out;       /* the Pods with extendedResourceClaimStatus, for the output */
    dra_explainer_t *why;  /* the reasons of an unsatisfiable pod (reasons.h), made on first use */
    uint32_t nok, nunsat, nerr, nplain, nwait;
    dra_mgroups_t *mg;     /* PodGroups (groups.h): their pods are scheduled by group cycles */
    dra_group_ctx_t *gctx;
    uint32_t nclaims_in;   /* claims of the input (before the groups' claims are instantiated) */
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
    if (a->m.nskipped)
        fprintf(stderr,
                "%u document(s) of kinds drabench does not read (Namespace, Service, "
                "...) were skipped\n",
                a->m.nskipped);
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
        fprintf(stderr,
                "%u DeviceTaintRule(s) ignored: DRADeviceTaintRules is off in release %s "
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

/* ---- pods ------------------------------------------------------------------------------------ */

/* The explainer of the reasons (reasons.h, the reference allocator's explain mode), made on
 * first use. */
static int explainer(actx_t *a)
{
    if (a->why)
        return DRA_OK;
    dra_alloc_options_t ao = {0};
    return dra_explainer_new(&a->m, &a->o->c.f, a->st, a->cel, &ao, &a->why);
}

/* The pod (replica) being placed and the nodes it may go to: the reasons' callback data. */
typedef struct podtry {
    actx_t *a;
    dra_extres_pod_t xp;
    uint32_t pinned; /* a DaemonSet's pod: its node only; UINT32_MAX: any */
} podtry_t;

static bool node_tried(const actx_t *a, uint32_t ni, uint32_t pinned)
{
    return !(a->o->node && strcmp(a->o->node, nz(a->m.nodes[ni]->name)) != 0) &&
           (pinned == UINT32_MAX || ni == pinned);
}

/* A claim without a pod (--node only): only the claim's reasons. */
static int tried_node(void *ud, uint32_t node, dra_why_t *w)
{
    (void)w;
    return node_tried(ud, node, UINT32_MAX) ? 0 : -1;
}

/* A pod: the scheduler's checks first, then its claims without the search (core/extres). */
static int pod_node_reason(void *ud, uint32_t node, dra_why_t *w)
{
    podtry_t *t = ud;
    actx_t *a = t->a;
    if (!node_tried(a, node, t->pinned))
        return -1;
    int rc = dra_extres_explain(a->why, &t->xp, a->m.nodes[node], &a->usage[node], true,
                                &a->xarena, w);
    if (rc) { /* out of memory: the node's reason says so rather than failing the summary */
        dra_why_scheduler(w, DRA_WHY_UNEXAMINED, -1, dra_strerror(rc));
    }
    return 1;
}

/* Say why no node tried took the pod (xp) or the claim (batch): the dominant per-node reasons
 * as "2 nodes: ...; 1 node: ..." (reasons.h): one wording for every unsatisfiable pod, whatever
 * rejected the nodes. Returns an exit status. */
static int say_unsatisfiable(actx_t *a, const char *label, podtry_t *t, dra_claim_t *const *batch,
                             uint32_t nb)
{
    if (explainer(a))
        return DRA_EXIT_ENV;
    dra_node_reasons_t nr;
    int rc = t ? dra_node_reasons(a->why, &a->m, NULL, 0, pod_node_reason, t, UINT32_MAX, &nr)
               : dra_node_reasons(a->why, &a->m, batch, nb, tried_node, a, UINT32_MAX, &nr);
    if (rc)
        return DRA_EXIT_ENV;
    char why[2048] = "";
    if (nr.nodes)
        dra_node_reasons_text(&nr, 3, why, sizeof why);
    say("%s: unsatisfiable on every node tried: %s", label, nr.nodes ? why : "no node tried");
    return DRA_EXIT_OK;
}

/* Record the special claim and the pod's status for the output: the claim joins the model
 * (after the input's claims), the pod a Pod of the output model. */
static int record_extended(actx_t *a, const dra_pod_t *pod, const char *podname,
                           const dra_node_t *node, const dra_extres_fit_t *fit,
                           dra_allocation_t *al)
{
    dra_claim_t *c = dra_model_add_claim(&a->m);
    dra_pod_t *p = dra_model_add_pod(&a->out);
    if (!c || !p)
        return DRA_EXIT_ENV;
    *c = *fit->claim;
    c->allocation = al;
    *p = *pod;
    p->kind = DRA_POD_POD;
    p->replicas = 1;
    p->name = dra_model_str(&a->out, podname);
    p->node_name = node->name;
    p->ext_claim = c->name;
    p->ext_mappings = fit->mappings;
    p->next_mappings = fit->nmappings;
    return p->name ? DRA_EXIT_OK : DRA_EXIT_ENV;
}

/* One allocate call of batch on node (the pair under --allocator both). Returns an exit status
 * (3: the reference and the fast allocator decided differently, said). */
static int alloc_call(actx_t *a, const char *label, const dra_node_t *node, dra_claim_t **batch,
                      uint32_t nb, dra_alloc_outcome_t *out)
{
    bool differs = false;
    char dwhy[DRA_DIAG_MSG_MAX * 2 + 64];
    int rc = a->o->c.both ? dra_conf_pair_allocate(&a->pair, node, batch, nb, &a->m.arena, out,
                                                   &differs, dwhy, sizeof dwhy)
                          : dra_anyalloc_allocate(&a->al, node, batch, nb, &a->m.arena, out);
    if (rc)
        return DRA_EXIT_ENV;
    if (differs)
        return report_difference(a, label, node, batch, nb, dwhy);
    return DRA_EXIT_OK;
}

/* Check the invariants on an allocated outcome and commit it (the fast side too); claims other
 * than `special` get their status.allocation. Returns an exit status. */
static int commit_batch(actx_t *a, const char *label, const dra_node_t *node, dra_claim_t **batch,
                        uint32_t nb, const dra_alloc_outcome_t *out, const dra_claim_t *special)
{
    dra_inv_report_t irep;
    if (dra_inv_check(&a->m, &a->o->c.f, a->st, a->cel, node, batch, out->allocations, nb, &irep) ==
            DRA_OK &&
        irep.nviolations) {
        say("drabench alloc: %s: invariant violated: %s", label, irep.first[0]);
        a->exitc = DRA_EXIT_CORRECTNESS;
    }
    for (uint32_t k = 0; k < nb; k++) {
        if (batch[k] != special)
            batch[k]->allocation = out->allocations[k];
        if (dra_alloc_state_commit(a->st, out->allocations[k]))
            return DRA_EXIT_ENV;
    }
    if (a->o->c.both && dra_conf_pair_commit_fast(&a->pair))
        return DRA_EXIT_ENV;
    return DRA_EXIT_OK;
}

/* Without pods: one claim alone on the first node that takes it (no pod, so no node filters
 * and no node resources). Returns an exit status. */
static int place_claim(actx_t *a, dra_claim_t *c)
{
    char label[300];
    snprintf(label, sizeof label, "claim %s", nz(c->name));
    dra_outcome_t last = DRA_OUTCOME_UNSATISFIABLE;
    char msg[DRA_DIAG_MSG_MAX] = "";
    dra_claim_t *batch[1] = {c};
    uint32_t tried = 0;
    for (uint32_t ni = 0; ni < a->m.nnodes; ni++) {
        const dra_node_t *node = a->m.nodes[ni];
        if (!node_tried(a, ni, UINT32_MAX))
            continue;
        tried++;
        dra_alloc_outcome_t out;
        int rc = alloc_call(a, label, node, batch, 1, &out);
        if (rc)
            return rc;
        last = out.kind;
        snprintf(msg, sizeof msg, "%s", out.msg);
        if (out.kind == DRA_OUTCOME_ALLOCATED) {
            if ((rc = commit_batch(a, label, node, batch, 1, &out, NULL)))
                return rc;
            a->nok++;
            say("%s: allocated on %s", label, nz(node->name));
            return DRA_EXIT_OK;
        }
        if (out.kind == DRA_OUTCOME_FATAL)
            break;
    }
    if (tried == 0) {
        a->nerr++;
        say("%s: not placed: no node to try (the manifests hold no Node, and no ResourceSlice "
            "names one)",
            label);
        return DRA_EXIT_OK;
    }
    if (last == DRA_OUTCOME_UNSATISFIABLE) {
        a->nunsat++;
        return say_unsatisfiable(a, label, NULL, batch, 1);
    }
    a->nerr++;
    say("%s: %s: %s", label, dra_outcome_name(last), msg);
    return DRA_EXIT_OK;
}

/* Try the pod (t->xp: its claims still to allocate batch[0..nb) and its extended resources) on
 * node ni: the scheduler's checks (dra_extres_node_check; a node they reject is left for the
 * reasons), then one allocate call. *placed when it went there, *devices when devices were
 * allocated for it. Returns an exit status (3: a decision differs). */
static int try_node(actx_t *a, const podtry_t *t, uint32_t pi, uint32_t ni, dra_claim_t **batch,
                    uint32_t nb, dra_outcome_t *last, char *msg, size_t msglen, bool *placed,
                    bool *devices)
{
    const dra_pod_t *pod = t->xp.pod;
    const char *podname = t->xp.podname;
    const dra_node_t *node = a->m.nodes[ni];
    *placed = *devices = false;
    dra_arena_mark_t mark = dra_arena_mark(&a->xarena);
    dra_extres_fit_t fit;
    dra_why_t why;
    int rc = dra_extres_node_check(&t->xp, node, &a->usage[ni], &a->xarena, &fit, &why);
    if (rc)
        return DRA_EXIT_ENV;
    if (!fit.fits) {
        dra_arena_reset_to(&a->xarena, mark);
        return DRA_EXIT_OK;
    }
    if (fit.claim)
        batch[nb++] = fit.claim;
    if (nb == 0) { /* nothing to allocate: the pod fits */
        *placed = true;
        *last = DRA_OUTCOME_ALLOCATED;
        return dra_node_usage_add(&a->usage[ni], &a->preq[pi]) ? DRA_EXIT_ENV : DRA_EXIT_OK;
    }
    dra_alloc_outcome_t out;
    if ((rc = alloc_call(a, podname, node, batch, nb, &out)))
        return rc;
    *last = out.kind;
    snprintf(msg, msglen, "%s", out.msg);
    if (out.kind != DRA_OUTCOME_ALLOCATED) {
        dra_arena_reset_to(&a->xarena, mark);
        return DRA_EXIT_OK;
    }
    if (fit.claim && fit.claim->nrequests == 0) {
        /* PreBind: the claim is created without requests and the pod status cannot be
         * patched (extendeddynamicresources.go patchPodExtendedResourceClaimStatus) */
        *last = DRA_OUTCOME_FATAL;
        dra_extres_prebind_msg(nz(node->name), nz(pod->namespace_), podname, msg, msglen);
        dra_arena_reset_to(&a->xarena, mark);
        return DRA_EXIT_OK;
    }
    if ((rc = commit_batch(a, podname, node, batch, nb, &out, fit.claim)))
        return rc;
    if (fit.claim && (rc = record_extended(a, pod, podname, node, &fit, out.allocations[nb - 1])))
        return rc;
    *placed = *devices = true;
    return dra_node_usage_add(&a->usage[ni], &a->preq[pi]) ? DRA_EXIT_ENV : DRA_EXIT_OK;
}

/* Place one pod (replica): every node in order (--node only; pinned: that node only) until one
 * takes it; one line on stderr (for a pod no node takes, the reasons of every node tried).
 * Returns an exit status (3 when a decision differs). */
static int place_pod(actx_t *a, uint32_t pi, const char *podname, uint32_t pinned,
                     dra_claim_t **batch, uint32_t nb, dra_claim_t *const *own, uint32_t nown)
{
    podtry_t t = {.a = a, .pinned = pinned};
    t.xp.map = &a->xmap;
    t.xp.m = &a->m;
    t.xp.f = &a->o->c.f;
    t.xp.pod = a->m.pods[pi];
    t.xp.podname = podname;
    t.xp.req = &a->preq[pi];
    t.xp.own = own;
    t.xp.nown = nown;
    t.xp.user_claims = nb > 0;
    dra_outcome_t last = DRA_OUTCOME_UNSATISFIABLE;
    char msg[DRA_DIAG_MSG_MAX + 256] = "";
    bool placed = false, devices = false;
    uint32_t ni = 0, tried = 0;
    for (; ni < a->m.nnodes && !placed; ni++) {
        if (!node_tried(a, ni, pinned))
            continue;
        tried++;
        int rc = try_node(a, &t, pi, ni, batch, nb, &last, msg, sizeof msg, &placed, &devices);
        if (rc)
            return rc;
        if (!placed && last == DRA_OUTCOME_FATAL)
            break;
    }
    if (placed) {
        const char *node = nz(a->m.nodes[ni - 1]->name);
        if (devices) {
            a->nok++;
            say("%s: allocated on %s", podname, node);
        } else if (nown) { /* its claims all allocated (a shared claim), nothing else to do */
            a->nok++;
            say("%s: allocated on %s (its claim%s allocated already)", podname, node,
                nown > 1 ? "s were" : " was");
        } else {
            a->nplain++;
            say("%s: placed on %s (no claims to allocate)", podname, node);
        }
    } else if (tried == 0) {
        a->nerr++;
        say("%s: not placed: no node to try (the manifests hold no Node, and no ResourceSlice "
            "names one)",
            podname);
    } else if (last == DRA_OUTCOME_UNSATISFIABLE) {
        a->nunsat++;
        return say_unsatisfiable(a, podname, &t, NULL, 0);
    } else {
        a->nerr++;
        say("%s: %s: %s", podname, dra_outcome_name(last), msg);
    }
    return DRA_EXIT_OK;
}

/* The claims of one pod replica as the conformance runner resolves them (dra_conf_pod_claims:
 * a template claim is <pod>-<claim>, the existing claim of that name when there is one - an
 * earlier output - or the one status.resourceClaimStatuses names) into own, and those still to
 * allocate into batch (first in own). Returns DRA_EXIT_OK, DRA_EXIT_ENV, or DRA_EXIT_USAGE when
 * a claim is missing (said). */
static int pod_claims(actx_t *a, const dra_pod_t *pod, const char *podname, dra_claim_t **own,
                      uint32_t *nown, dra_claim_t **batch, uint32_t *nb, uint32_t max)
{
    dra_claim_t *done[64];
    uint32_t nd = 0;
    dra_diag_t d;
    dra_diag_clear(&d);
    *nown = *nb = 0;
    int rc = dra_conf_pod_claims(&a->m, pod, podname, batch, nb, done, &nd,
                                 max < 64 ? max : 64, &d);
    if (rc == DRA_ENOMEM)
        return DRA_EXIT_ENV;
    if (rc != DRA_OK) {
        say("drabench alloc: pod %s: %s", podname, d.msg);
        return DRA_EXIT_USAGE;
    }
    if (*nb + nd > max) {
        say("drabench alloc: pod %s: more than %u claims", podname, max);
        return DRA_EXIT_USAGE;
    }
    for (uint32_t k = 0; k < *nb; k++)
        own[(*nown)++] = batch[k];
    for (uint32_t k = 0; k < nd; k++)
        own[(*nown)++] = done[k];
    for (uint32_t k = 0; k < *nown; k++)
        for (uint32_t i = 0; i < a->nclaims0; i++)
            if (a->m.claims[i] == own[k])
                a->claim_used[i] = true;
    return DRA_EXIT_OK;
}

/* A claim of the input the scheduler made for this pod's extended resources in an earlier
 * attempt: upstream's Filter rejects every node while it exists ("cannot schedule extended
 * resource claim") and PostFilter deletes it; the next attempt builds a new one. Deleted here
 * (its allocation released). Returns an exit status. */
static int drop_stale_extended(actx_t *a, const dra_pod_t *pod, const char *podname)
{
    for (uint32_t i = 0; i < a->nclaims0; i++) {
        dra_claim_t *c = a->m.claims[i];
        if (!c->extended || !c->owner_pod || a->claim_dropped[i] ||
            strcmp(c->owner_pod, podname) != 0 ||
            strcmp(nz(c->namespace_), nz(pod->namespace_)) != 0 ||
            (pod->uid && c->owner_uid && strcmp(pod->uid, c->owner_uid) != 0))
            continue;
        say("%s: its extended-resource claim %s from an earlier scheduling attempt is deleted "
            "(the scheduler's PostFilter does so) and built again",
            podname, nz(c->name));
        if (c->allocation &&
            (dra_alloc_state_release(a->st, c->allocation) ||
             (a->o->c.both && dra_alloc_state_release(a->pair.fast_state, c->allocation))))
            return DRA_EXIT_ENV;
        a->claim_dropped[i] = true;
        a->claim_used[i] = true;
    }
    return DRA_EXIT_OK;
}

/* Per model node the usage of the pods already bound there (spec.nodeName); per pod its
 * requests; the extended-resource map. Returns an exit status. */
static int setup_pods(actx_t *a)
{
    if (dra_extres_map_build(&a->m, &a->o->c.f, &a->xmap) ||
        dra_extres_usage_build(&a->m, &a->m.arena, &a->preq, &a->usage))
        return DRA_EXIT_ENV;
    a->nclaims0 = a->m.nclaims;
    a->claim_used = calloc(a->nclaims0 ? a->nclaims0 : 1, sizeof *a->claim_used);
    a->claim_dropped = calloc(a->nclaims0 ? a->nclaims0 : 1, sizeof *a->claim_dropped);
    if (!a->claim_used || !a->claim_dropped)
        return DRA_EXIT_ENV;
    return DRA_EXIT_OK;
}

/* How many pods a pod object stands for, and whether they are pinned to one node each
 * (a DaemonSet: one pod per node, as its controller pins them with node affinity). */
static int64_t pod_replicas(const actx_t *a, const dra_pod_t *pod, bool *per_node)
{
    *per_node = pod->kind == DRA_POD_DAEMONSET;
    if (*per_node)
        return a->m.nnodes;
    return pod->kind == DRA_POD_POD ? 1 : pod->replicas > 0 ? pod->replicas : 0;
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

/* A group member's claims of the input (spec.resourceClaims[].resourceClaimName, and its
 * PodGroup's) are used by a pod: the group cycle allocates them or says why not. */
static void mark_group_claims(actx_t *a, const dra_pod_t *pod, uint32_t gi)
{
    const dra_podgroup_t *pg = dra_mgroups_podgroup(a->mg, gi);
    for (uint32_t i = 0; i < a->nclaims0 && i < a->nclaims_in; i++) {
        const dra_claim_t *c = a->m.claims[i];
        if (!c->name || strcmp(nz(c->namespace_), nz(pod->namespace_)) != 0)
            continue;
        for (uint32_t k = 0; k < pod->nclaims; k++)
            if (pod->claims[k].claim_name && strcmp(pod->claims[k].claim_name, c->name) == 0)
                a->claim_used[i] = true;
        for (uint32_t k = 0; pg && k < pg->s.nclaims; k++)
            if (pg->s.claims[k].claim_name && strcmp(pg->s.claims[k].claim_name, c->name) == 0)
                a->claim_used[i] = true;
    }
}

/* The work list: per pod (replica) its claims and extended resources placed together; without
 * pods, every unallocated claim on its own. Returns an exit status (stops at 3 only for a
 * differing decision, at 4). */
static int allocate_all(actx_t *a)
{
    dra_claim_t *batch[65], *own[64];
    if (a->o->node && !dra_model_find_node(&a->m, a->o->node)) {
        say("drabench alloc: --node %s: no such node in the manifests (a Node object, or a "
            "ResourceSlice's nodeName)", a->o->node);
        return DRA_EXIT_USAGE;
    }
    if (a->m.nnodes == 0)
        say("drabench alloc: no nodes: the manifests hold no Node, and no ResourceSlice names "
            "one (nodeName); nothing can be placed");
    int ret = setup_pods(a);
    if (ret != DRA_EXIT_OK)
        return ret;
    if (a->m.npods == 0) {
        for (uint32_t i = 0; i < a->nclaims0 && ret == DRA_EXIT_OK; i++)
            if (!a->m.claims[i]->allocation)
                ret = place_claim(a, a->m.claims[i]);
        return ret;
    }
    uint8_t *gdone = calloc(a->mg && dra_mgroups_count(a->mg) ? dra_mgroups_count(a->mg) : 1, 1);
    if (!gdone)
        return DRA_EXIT_ENV;
    for (uint32_t p = 0; p < a->m.npods && ret == DRA_EXIT_OK; p++) {
        const dra_pod_t *pod = a->m.pods[p];
        bool per_node;
        int64_t reps = pod_replicas(a, pod, &per_node);
        uint32_t gi;
        const char *why;
        dra_mg_pod_t fate = a->mg ? dra_mgroups_pod(a->mg, p, &gi, &why) : DRA_MG_ALONE;
        if (fate == DRA_MG_WAITS) {
            /* never tried: upstream keeps it UnschedulableAndUnresolvable */
            say("%s:%u:%u: %s %s: waits: %s", nz(pod->pos.file), pod->pos.line, pod->pos.column,
                dra_pod_kind_name(pod->kind), nz(pod->name), why);
            a->nwait += (uint32_t)(reps > 0 ? reps : 1);
            continue;
        }
        if (fate == DRA_MG_MEMBER) {
            /* the group's first pod in input order runs the cycle for all of its pods (their
             * claims; container requests and extended resources are not part of the cycle) */
            mark_group_claims(a, pod, gi);
            if (!gdone[gi]) {
                gdone[gi] = 1;
                ret = place_group(a, gi);
            }
            continue;
        }
        if (pod->node_name) {
            say("%s: already bound to node %s (spec.nodeName): not scheduled again; its "
                "requests count on that node",
                nz(pod->name), pod->node_name);
            continue;
        }
        if (reps == 0) {
            say("%s: %s with 0 replicas: no pods", nz(pod->name), dra_pod_kind_name(pod->kind));
            continue;
        }
        for (uint32_t k = 0; k < pod->nunmodelled; k++)
            say("%s: %s: ignored", nz(pod->name), pod->unmodelled[k]);
        for (int64_t rep = 0; rep < reps && ret == DRA_EXIT_OK; rep++) {
            char podname[300];
            uint32_t pinned = UINT32_MAX;
            if (per_node) {
                pinned = (uint32_t)rep;
                snprintf(podname, sizeof podname, "%s-%s", nz(pod->name),
                         nz(a->m.nodes[rep]->name));
                char r[256];
                if (!dra_extres_node_filters(pod, a->m.nodes[rep], r, sizeof r)) {
                    say("%s: no pod on node %s: %s", nz(pod->name), nz(a->m.nodes[rep]->name), r);
                    continue;
                }
            } else if (reps > 1 || pod->kind != DRA_POD_POD) {
                snprintf(podname, sizeof podname, "%s-%lld", nz(pod->name), (long long)rep);
            } else {
                snprintf(podname, sizeof podname, "%s", nz(pod->name));
            }
            uint32_t nown, nb;
            int pc = pod_claims(a, pod, podname, own, &nown, batch, &nb, 64);
            if (pc == DRA_EXIT_ENV) {
                ret = pc;
                break;
            }
            if (pc != DRA_EXIT_OK) {
                a->nerr++;
                continue;
            }
            if ((ret = drop_stale_extended(a, pod, podname)))
                break;
            ret = place_pod(a, p, podname, pinned, batch, nb, own, nown);
        }
    }
    for (uint32_t i = 0; i < a->nclaims0 && i < a->nclaims_in; i++)
        if (!a->claim_used[i] && !a->m.claims[i]->allocation)
            say("claim %s/%s: no pod in the input uses it: not allocated",
                nz(a->m.claims[i]->namespace_), nz(a->m.claims[i]->name));
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

/* The claims (the input's, those made from templates and the extended-resource claims the
 * scheduler made, not the deleted stale ones) and the Pods whose status got an
 * extendedResourceClaimStatus, as YAML or JSON on stdout; the summary line. */
static int write_claims(actx_t *a)
{
    for (uint32_t i = 0; i < a->m.nclaims; i++) {
        if (i < a->nclaims0 && a->claim_dropped[i])
            continue;
        dra_claim_t *c = dra_model_add_claim(&a->out);
        if (!c)
            return DRA_EXIT_ENV;
        *c = *a->m.claims[i];
    }
    const opts_t *o = a->o;
    int rc = o->json ? dra_manifest_write_json(&a->out, stdout)
                     : dra_manifest_write_yaml(&a->out, stdout);
    char plain[96] = "";
    if (a->nplain)
        snprintf(plain, sizeof plain, ", %u placed without claims", a->nplain);
    if (a->nwait)
        snprintf(plain + strlen(plain), sizeof plain - strlen(plain), ", %u waiting", a->nwait);
    fprintf(stderr, "%u allocated, %u unsatisfiable, %u failed%s (release %s, %s allocator%s)\n",
            a->nok, a->nunsat, a->nerr, plain,
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
    dra_model_init(&a->out);
    dra_arena_init(&a->xarena, 0);
    dra_diag_list_init(&a->errs);
    dra_taint_rules_init(&a->rules);
    int exitc = load_manifests(a, paths, npaths);
    a->nclaims_in = a->m.nclaims;
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
    dra_extres_usage_free(a->m.nnodes, a->preq, a->usage);
    free(a->claim_used);
    free(a->claim_dropped);
    dra_extres_map_free(&a->xmap);
    dra_model_fini(&a->out);
    dra_arena_fini(&a->xarena);
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
            fputs(help_options, stdout);
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
