/*
 * cmd_explain.c - `drabench explain`: for every node of a cluster, whether a claim (or a pod's
 * claims, a template, a scenario's shape) fits and, where not, the first reason in upstream's
 * terms, grouped by reason (core/alloc/explain.h: the reference allocator's explain mode).
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/explain.h"
#include "base/intern.h"
#include "extres/extres.h"
#include "cli.h"
#include "conformance.h"
#include "escape.h"
#include "manifest.h"
#include "progress.h"
#include "reasons.h"
#include "scenario.h"
#include "taintrule.h"

static const char help[] =
    "drabench explain - why a claim does not fit, node by node, in upstream's terms\n"
    "\n"
    "Usage: drabench explain -f FILE|DIR... [--claim|--pod|--template NAME] [options]\n"
    "       drabench explain --scenario SCENARIO|NAME [--shape NAME] [-f FILE...] [options]\n"
    "\n"
    "Asks the reference allocator, on every node of the cluster, to allocate the claim (a\n"
    "ResourceClaim, the claims of a Pod together, a ResourceClaimTemplate, or a scenario's claim\n"
    "shape) and, where it does not fit, names the first reason, from the allocator's own checks:\n"
    "a class or request selector no device passes, too few free devices, a feature gate that is\n"
    "off, an incomplete pool, capacity, counters, taints, allocationMode All, a matchAttribute or\n"
    "distinctAttribute constraint, requests competing for the same devices, or the allocator's\n"
    "Fatal / NodeFailure message. A pod is checked as the kube-scheduler checks it first: node\n"
    "filters (nodeSelector, node affinity, taints, its allocated claims' nodes), NodeResourcesFit\n"
    "(the Node's status.allocatable, the pods bound there) and, for container limits naming an\n"
    "extended resource backed by DRA (KEP-5004), the claim the scheduler builds on that node,\n"
    "allocated with the pod's claims (a scenario's extended-resource shape likewise). Nodes with\n"
    "the same reason are grouped and counted, largest group first; the nodes where it fits are\n"
    "listed too.\n"
    "\n"
    "The cluster: manifests (-f: slices, classes, nodes, a `kubectl get resourceslices,\n"
    "deviceclasses,nodes -o yaml` dump, claims with status.allocation are in use), or a\n"
    "scenario's generated cluster (empty: nothing allocated) plus any -f files.\n"
    "Without --claim / --pod / --template / --shape the inputs must hold exactly one pending pod,\n"
    "else exactly one unallocated claim, else one template (a scenario: one mix entry).\n"
    "\n"
    "Options:\n"
    "  -f, --file PATH        manifest file or directory (repeatable)\n"
    "  -s, --scenario S       a built-in scenario name or a scenario file: its cluster and shapes\n"
    "      --seed N           the scenario's seed (default: the scenario's)\n"
    "  -c, --claim NAME       a ResourceClaim, [namespace/]name\n"
    "  -p, --pod NAME         a Pod, [namespace/]name: its claims together (a template claim\n"
    "                         becomes <pod>-<claim>) and its extended resources\n"
    "  -t, --template NAME    a ResourceClaimTemplate, [namespace/]name\n"
    "      --shape NAME       a scenario's mix entry by its template name (gpu-n-8, mig-1g.10gb,\n"
    "                         the name of an inline template) or its pod's (extended-resource)\n"
    "  -n, --node NAME        explain on this node only (repeatable)\n"
    "  -r, --release R        release profile 1.34 | 1.35 | 1.36 | 1.37 | 1.38-pre (default: the\n"
    "                         scenario's, else 1.37)\n"
    "  -F, --feature GATE=B   feature gate override (repeatable)\n"
    "  -b, --upstream-bugs    reproduce the known upstream allocator bugs\n"
    "  -S, --max-steps N      search budget per node in allocateOne calls (default 1000000;\n"
    "                         beyond it the node's answer is Fatal \"filter operation aborted\")\n"
    "  -o, --output FMT       table | json (json: every node's outcome, reason and numbers)\n"
    "  -l, --list N           table: node names shown per group (default 5, 0 = all)\n"
    "      --progress W       auto | always | never: a bar of nodes explained on stderr\n"
    "  -h, --help             show this help\n"
    "\n"
    "Examples:\n"
    "  drabench explain --scenario default --shape gpu-n-8 --release 1.35\n"
    "  drabench explain -f cluster-dump.yaml -f pod.yaml --pod default/trainer\n"
    "  drabench explain --scenario default --shape extended-resource --release 1.35\n"
    "  drabench explain -f ../shared/real-manifests/dra-example-driver -o json | jq '.groups[0]'\n"
    "\n"
    "Exit status: 0 the claim fits on some node, 1 it fits on no node, 2 usage error or invalid\n"
    "input, 4 environment error.\n";

typedef struct opts {
    char **files;
    int nfiles;
    const char *scenario, *claim, *pod, *tmpl, *shape;
    const char **nodes;
    int nnodes;
    bool seed_set, json, bugs, max_steps_set;
    uint64_t seed, max_steps;
    const char *release;
    const char **feats;
    int nfeats;
    uint32_t list;
    dra_progress_when_t progress;
} opts_t;

static const char *nz(const char *s)
{
    return s ? s : "";
}

/* ---- groups of nodes with the same reason ---------------------------------------------------- */

typedef struct group {
    dra_why_t why;    /* the first node's explanation */
    uint32_t count;
    uint32_t *nodes;  /* model node indexes, in node order */
    uint32_t first;
} group_t;

typedef struct ectx {
    const opts_t *o;
    dra_model_t m;
    dra_taint_rules_t rules;
    dra_diag_list_t errs;
    dra_alloc_features_t f;
    dra_scenario_t scn;
    bool have_scn;
    dra_scenario_built_t built;
    bool have_built;
    dra_claim_t *claims[64];
    uint32_t nclaims;
    /* a pod (--pod, a pending pod, a pod shape): checked as the scheduler does (core/extres) */
    const dra_pod_t *pod;
    dra_claim_t *own[64]; /* its claims, allocated or not */
    uint32_t nown;
    dra_pod_req_t req;
    dra_extres_map_t xmap;
    dra_pod_req_t *preq;     /* per model pod */
    dra_node_usage_t *usage; /* per model node: the pods bound there */
    dra_arena_t xarena;
    char what[400]; /* "claim default/x", "pod default/p (2 claims)" */
    const dra_allocation_t *unalloc; /* --claim of an allocated claim: its allocation */
    group_t *groups;
    uint32_t ngroups, capgroups;
    uint32_t *hash; /* text -> group + 1 */
    uint32_t hmask;
    dra_why_t *per; /* per explained node (json) */
    uint32_t *per_node;
    uint32_t nper;
    uint32_t nfit, nexpl;
} ectx_t;

static uint32_t text_hash(const char *s)
{
    return (uint32_t)dra_hash64(s, strlen(s));
}

/* The group of w's text (a new one when it is the first such node). NULL: out of memory. */
static group_t *group_for(ectx_t *e, const dra_why_t *w, uint32_t node)
{
    if (2 * (e->ngroups + 1) > e->hmask) {
        uint32_t nm = e->hmask ? 2 * e->hmask + 1 : 63;
        uint32_t *nh = calloc((size_t)nm + 1, sizeof *nh);
        if (!nh)
            return NULL;
        for (uint32_t g = 0; g < e->ngroups; g++) {
            uint32_t i = text_hash(e->groups[g].why.text) & nm;
            while (nh[i])
                i = (i + 1) & nm;
            nh[i] = g + 1;
        }
        free(e->hash);
        e->hash = nh;
        e->hmask = nm;
    }
    uint32_t i = text_hash(w->text) & e->hmask;
    for (; e->hash[i]; i = (i + 1) & e->hmask)
        if (strcmp(e->groups[e->hash[i] - 1].why.text, w->text) == 0)
            return &e->groups[e->hash[i] - 1];
    if (e->ngroups == e->capgroups) {
        uint32_t nc = e->capgroups ? 2 * e->capgroups : 16;
        group_t *ng = realloc(e->groups, nc * sizeof *ng);
        if (!ng)
            return NULL;
        e->groups = ng;
        e->capgroups = nc;
    }
    group_t *g = &e->groups[e->ngroups];
    memset(g, 0, sizeof *g);
    g->why = *w;
    g->first = node;
    g->nodes = malloc((size_t)(e->m.nnodes ? e->m.nnodes : 1) * sizeof *g->nodes);
    if (!g->nodes)
        return NULL;
    e->hash[i] = ++e->ngroups;
    return g;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_group(const void *a, const void *b)
{
    const group_t *x = a, *y = b;
    bool fx = x->why.kind == DRA_WHY_FITS, fy = y->why.kind == DRA_WHY_FITS;
    if (fx != fy)
        return fx ? -1 : 1;
    bool ax = dra_why_absent(&x->why), ay = dra_why_absent(&y->why);
    if (ax != ay) /* nodes of another kind last */
        return ax ? 1 : -1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* ---- inputs ---------------------------------------------------------------------------------- */

static void print_errs(const dra_diag_list_t *l)
{
    char buf[DRA_DIAG_MSG_MAX + 512];
    for (size_t i = 0; i < l->count; i++)
        fprintf(stderr, "drabench explain: %s\n", dra_diag_format(&l->items[i], buf, sizeof buf));
}

/* "ns/name" -> ns (default "default") and name. */
static const char *split_ns(const char *s, char *ns, size_t nslen)
{
    const char *sl = strchr(s, '/');
    snprintf(ns, nslen, "%.*s", sl ? (int)(sl - s) : 7, sl ? s : "default");
    return sl ? sl + 1 : s;
}

/* The scenario's cluster and shapes, then the files; features. Returns an exit status. */
static int load(ectx_t *e)
{
    const opts_t *o = e->o;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = DRA_OK;
    dra_release_t rel = DRA_RELEASE_DEFAULT;
    uint32_t ngc = 0, ngt = 0;
    if (o->scenario) {
        rc = dra_scenario_load_named(&e->scn, o->scenario, &d);
        if (rc) {
            char buf[DRA_DIAG_MSG_MAX + 512];
            fprintf(stderr, "drabench explain: %s\n", dra_diag_format(&d, buf, sizeof buf));
            return rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
        }
        e->have_scn = true;
        rel = (dra_release_t)e->scn.release;
        rc = dra_scenario_build(&e->scn, &e->m, o->seed_set ? o->seed : e->scn.seed, &e->built, &d);
        if (rc) {
            char buf[DRA_DIAG_MSG_MAX + 512];
            fprintf(stderr, "drabench explain: %s\n", dra_diag_format(&d, buf, sizeof buf));
            return rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
        }
        e->have_built = true;
        ngc = e->m.nclasses;
        ngt = e->m.ntemplates;
        if (e->scn.nmanifests)
            rc = dra_conf_read_paths(&e->m, &e->rules, (char *const *)e->scn.manifests,
                                     (int)e->scn.nmanifests, &e->errs);
    }
    if (!rc && o->nfiles)
        rc = dra_conf_read_paths(&e->m, &e->rules, o->files, o->nfiles, &e->errs);
    /* with a scenario, the manifests' DeviceClasses are the classes: the build's standard class
     * of the same name yields; the scenario's templates are its workload's (scenario.h) */
    if (!rc && e->have_scn)
        (void)dra_scenario_manifests_yield(&e->m, ngc, ngt);
    if (!rc && !o->scenario && !o->nfiles)
        return dra_cli_usage_error("explain", "no cluster: give -f FILE|DIR or --scenario");
    if (!rc)
        rc = dra_model_imply_nodes(&e->m);
    if (rc) {
        print_errs(&e->errs);
        return rc == DRA_ENOMEM ? DRA_EXIT_ENV : rc == DRA_EIO ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
    }
    if (o->release && dra_alloc_release_parse(o->release, &rel, &d))
        return dra_cli_usage_error("explain", "%s", d.msg);
    dra_alloc_features_init(&e->f, rel);
    for (uint32_t i = 0; e->have_scn && i < e->scn.nfeatures; i++)
        if (dra_alloc_features_set_gate(&e->f, e->scn.features[i].name, e->scn.features[i].on, &d))
            return dra_cli_usage_error("explain", "scenario: %s", d.msg);
    for (int i = 0; i < o->nfeats; i++)
        if (dra_alloc_features_set(&e->f, o->feats[i], &d))
            return dra_cli_usage_error("explain", "%s", d.msg);
    e->f.upstream_bugs = o->bugs;
    return DRA_EXIT_OK;
}

static int add_claim(ectx_t *e, dra_claim_t *c)
{
    if (e->nclaims == sizeof e->claims / sizeof e->claims[0])
        return dra_cli_usage_error("explain", "more than 64 claims");
    e->claims[e->nclaims++] = c;
    return DRA_EXIT_OK;
}

/* ", extended resources nvidia.com/gpu: 2, ..." of the pod's requests a DeviceClass backs
 * under the features (empty when none). */
static void extended_what(ectx_t *e, char *buf, size_t len)
{
    buf[0] = 0;
    size_t at = 0;
    for (uint32_t i = 0; i < e->req.nscalar && at < len; i++) {
        const dra_pod_scalar_t *r = &e->req.scalar[i];
        if (!dra_extres_map_find(&e->xmap, r->name))
            continue;
        at += (size_t)snprintf(buf + at, len - at, "%s%s: %lld", at ? ", " : ", extended resources ",
                               r->name, (long long)r->value);
    }
}

/* Pod mode: the pod's requests, the extended-resource map, the usage of the bound pods. */
static int pod_setup(ectx_t *e, const dra_pod_t *p)
{
    e->pod = p;
    if (dra_extres_pod(p, &e->xarena, &e->req) || dra_extres_map_build(&e->m, &e->f, &e->xmap) ||
        dra_extres_usage_build(&e->m, &e->xarena, &e->preq, &e->usage))
        return DRA_EXIT_ENV;
    return DRA_EXIT_OK;
}

/* A pod's claims as alloc resolves them (dra_conf_pod_claims: a template claim is <pod>-<claim>,
 * the existing one when there is one) and its extended resources; those allocated already
 * constrain the node (dra_extres_node_check: "resourceclaim not available on the node"). */
static int pod_claims(ectx_t *e, const dra_pod_t *p)
{
    int rc0 = pod_setup(e, p);
    if (rc0)
        return rc0;
    dra_claim_t *done[64];
    uint32_t ndone = 0;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_conf_pod_claims(&e->m, p, nz(p->name), e->claims, &e->nclaims, done, &ndone, 64,
                                 &d);
    if (rc == DRA_ENOMEM)
        return DRA_EXIT_ENV;
    if (rc == DRA_OK && e->nclaims + ndone > sizeof e->own / sizeof e->own[0])
        return dra_cli_usage_error("explain", "more than 64 claims");
    if (rc) {
        dra_cli_notef(stderr, "drabench explain: pod %s/%s: %s", nz(p->namespace_), nz(p->name),
                      d.msg);
        return DRA_EXIT_USAGE;
    }
    for (uint32_t k = 0; k < e->nclaims; k++)
        e->own[e->nown++] = e->claims[k];
    for (uint32_t k = 0; k < ndone; k++)
        e->own[e->nown++] = done[k];
    char ext[300], al[64] = "";
    extended_what(e, ext, sizeof ext);
    if (ndone)
        snprintf(al, sizeof al, ", %u allocated already", ndone);
    snprintf(e->what, sizeof e->what, "pod %s/%s (%u claim%s%s%s)", nz(p->namespace_),
             nz(p->name), e->nclaims, e->nclaims == 1 ? "" : "s", al, ext);
    return DRA_EXIT_OK;
}

static int from_template(ectx_t *e, const dra_claim_t *t)
{
    dra_claim_t *c = dra_model_instantiate(&e->m, t, t->namespace_, nz(t->name));
    if (!c)
        return DRA_EXIT_ENV;
    snprintf(e->what, sizeof e->what, "template %s/%s", nz(t->namespace_), nz(t->name));
    return add_claim(e, c);
}

/* Mix entry i of the scenario: its template, or its pod (extended-resource). */
static int from_shape(ectx_t *e, uint32_t i)
{
    int rc;
    if (e->built.templates[i]) {
        rc = from_template(e, e->built.templates[i]);
    } else {
        rc = pod_setup(e, e->built.pods[i]);
        if (!rc && !e->req.any)
            return dra_cli_usage_error("explain", "shape %s: its pod requests nothing",
                                       dra_scenario_shape_name(&e->built, i));
    }
    char ext[300] = "";
    if (!e->built.templates[i])
        extended_what(e, ext, sizeof ext);
    snprintf(e->what, sizeof e->what, "shape %s (spec.workload.mix[%u]%s)",
             dra_scenario_shape_name(&e->built, i), i, ext);
    return rc;
}

/* Print what the inputs offer to explain (the user named none, or several exist). */
static int choose_error(ectx_t *e, const char *why)
{
    fprintf(stderr, "drabench explain: %s; name one with --pod, --claim, --template%s\n", why,
            e->have_scn ? " or --shape" : "");
    uint32_t shown = 0;
    for (uint32_t i = 0; i < e->m.npods && shown < 8; i++, shown++)
        fprintf(stderr, "  --pod %s/%s\n", nz(e->m.pods[i]->namespace_), nz(e->m.pods[i]->name));
    for (uint32_t i = 0; i < e->m.nclaims && shown < 16; i++)
        if (!e->m.claims[i]->allocation) {
            fprintf(stderr, "  --claim %s/%s\n", nz(e->m.claims[i]->namespace_),
                    nz(e->m.claims[i]->name));
            shown++;
        }
    for (uint32_t i = 0; e->have_scn && i < e->scn.nmix; i++)
        fprintf(stderr, "  --shape %s\n", dra_scenario_shape_name(&e->built, i));
    for (uint32_t i = 0; !e->have_scn && i < e->m.ntemplates && shown < 24; i++, shown++)
        fprintf(stderr, "  --template %s/%s\n", nz(e->m.templates[i]->namespace_),
                nz(e->m.templates[i]->name));
    return DRA_EXIT_USAGE;
}

/* The claims to explain. Returns an exit status. */
static int pick(ectx_t *e)
{
    const opts_t *o = e->o;
    char ns[256];
    if (o->claim) {
        const char *n = split_ns(o->claim, ns, sizeof ns);
        dra_claim_t *c = dra_model_find_claim(&e->m, ns, n);
        if (!c)
            return dra_cli_usage_error("explain", "no ResourceClaim %s/%s in the inputs", ns, n);
        snprintf(e->what, sizeof e->what, "claim %s/%s%s", ns, n,
                 c->allocation ? " (allocated: explained as if its devices were free)" : "");
        if (c->allocation) {
            e->unalloc = c->allocation; /* released from the state before explaining */
            dra_claim_t *copy = dra_model_instantiate(&e->m, c, c->namespace_, nz(c->name));
            if (!copy)
                return DRA_EXIT_ENV;
            c = copy;
        }
        return add_claim(e, c);
    }
    if (o->pod) {
        const char *n = split_ns(o->pod, ns, sizeof ns);
        for (uint32_t i = 0; i < e->m.npods; i++)
            if (!strcmp(nz(e->m.pods[i]->namespace_), ns) && !strcmp(nz(e->m.pods[i]->name), n))
                return pod_claims(e, e->m.pods[i]);
        return dra_cli_usage_error("explain", "no Pod %s/%s in the inputs", ns, n);
    }
    if (o->tmpl) {
        const char *n = split_ns(o->tmpl, ns, sizeof ns);
        const dra_claim_t *t = dra_model_find_template(&e->m, ns, n);
        if (!t)
            return dra_cli_usage_error("explain", "no ResourceClaimTemplate %s/%s in the inputs",
                                       ns, n);
        return from_template(e, t);
    }
    if (o->shape) {
        for (uint32_t i = 0; e->have_scn && i < e->scn.nmix; i++)
            if (!strcmp(dra_scenario_shape_name(&e->built, i), o->shape))
                return from_shape(e, i);
        if (!e->have_scn)
            return dra_cli_usage_error("explain", "--shape needs --scenario");
        return choose_error(e, "no mix entry of the scenario has that template or pod name");
    }
    /* one pending pod, else one unallocated claim, else one template / mix entry */
    uint32_t np = 0, nc = 0, last = 0;
    for (uint32_t i = 0; i < e->m.npods; i++)
        if (!e->m.pods[i]->node_name) {
            np++;
            last = i;
        }
    if (np == 1)
        return pod_claims(e, e->m.pods[last]);
    if (np > 1)
        return choose_error(e, "the inputs hold several pending pods");
    for (uint32_t i = 0; i < e->m.nclaims; i++)
        if (!e->m.claims[i]->allocation) {
            nc++;
            last = i;
        }
    if (nc == 1) {
        snprintf(e->what, sizeof e->what, "claim %s/%s", nz(e->m.claims[last]->namespace_),
                 nz(e->m.claims[last]->name));
        return add_claim(e, e->m.claims[last]);
    }
    if (nc > 1)
        return choose_error(e, "the inputs hold several unallocated claims");
    if (e->have_scn && e->scn.nmix == 1)
        return from_shape(e, 0);
    if (!e->have_scn && e->m.ntemplates == 1)
        return from_template(e, e->m.templates[0]);
    return choose_error(e, "nothing to explain was named");
}

/* ---- explaining ------------------------------------------------------------------------------ */

static bool node_wanted(const opts_t *o, const dra_node_t *n)
{
    if (!o->nnodes)
        return true;
    for (int i = 0; i < o->nnodes; i++)
        if (!strcmp(o->nodes[i], nz(n->name)))
            return true;
    return false;
}

static int explain_all(ectx_t *e)
{
    const opts_t *o = e->o;
    dra_alloc_state_t *st = NULL;
    dra_cel_cache_t *cel = NULL;
    dra_explainer_t *x = NULL;
    int exitc = DRA_EXIT_ENV;
    if (dra_alloc_state_new(&e->m, &e->f, &st) || dra_alloc_state_add_model_claims(st) ||
        dra_cel_cache_new(&cel))
        goto out;
    if (e->unalloc && dra_alloc_state_release(st, e->unalloc) == DRA_ENOMEM)
        goto out;
    if (e->rules.n && dra_taint_rules_enabled(&e->f)) {
        dra_diag_t d;
        int rc = dra_taint_rules_apply(&e->rules, &e->m, cel, &e->f, NULL, &d);
        if (rc) {
            fprintf(stderr, "drabench explain: %s\n", rc == DRA_ENOMEM ? dra_strerror(rc) : d.msg);
            exitc = rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
            goto out;
        }
    }
    dra_alloc_options_t ao = {0};
    ao.max_steps = o->max_steps_set ? o->max_steps : DRA_CONF_DEFAULT_MAX_STEPS;
    ao.share_seed = 1;
    if (dra_explainer_new(&e->m, &e->f, st, cel, &ao, &x))
        goto out;
    if (o->json) {
        e->per = malloc((size_t)(e->m.nnodes ? e->m.nnodes : 1) * sizeof *e->per);
        e->per_node = malloc((size_t)(e->m.nnodes ? e->m.nnodes : 1) * sizeof *e->per_node);
        if (!e->per || !e->per_node)
            goto out;
    }
    dra_progress_t prog;
    dra_progress_init(&prog, dra_progress_mode(o->progress, false) == DRA_PROGRESS_BAR
                                 ? DRA_PROGRESS_BAR
                                 : DRA_PROGRESS_NONE,
                      stderr);
    for (uint32_t i = 0; i < e->m.nnodes; i++) {
        const dra_node_t *node = e->m.nodes[i];
        if (!node_wanted(o, node))
            continue;
        dra_why_t w;
        if (e->pod) { /* the scheduler's checks, then the claims with the node's special claim */
            dra_extres_pod_t xp = {.map = &e->xmap, .m = &e->m, .f = &e->f, .pod = e->pod,
                                   .req = &e->req, .own = e->own, .nown = e->nown,
                                   .user_claims = e->nclaims > 0};
            if (dra_extres_explain(x, &xp, node, &e->usage[i], false, &e->xarena, &w))
                goto out;
        } else if (dra_explain(x, node, e->claims, e->nclaims, &w)) {
            goto out;
        }
        group_t *g = group_for(e, &w, i);
        if (!g)
            goto out;
        g->nodes[g->count++] = i;
        e->nexpl++;
        e->nfit += w.kind == DRA_WHY_FITS;
        if (e->per) {
            e->per[e->nper] = w;
            e->per_node[e->nper++] = i;
        }
        dra_progress_update(&prog, "explain: nodes", i + 1, e->m.nnodes, false);
    }
    dra_progress_clear(&prog);
    exitc = DRA_EXIT_OK;
out:
    dra_explainer_free(x);
    dra_cel_cache_free(cel);
    dra_alloc_state_free(st);
    return exitc;
}

/* ---- output ---------------------------------------------------------------------------------- */

/* Up to o->list node names of g (all with 0), ", ... (N more)" after. */
static void print_names(const ectx_t *e, const group_t *g)
{
    char a[32], line[600];
    uint32_t show = e->o->list == 0 || e->o->list > g->count ? g->count : e->o->list;
    for (uint32_t k = 0; k < show; k++) {
        dra_msg_format(line, sizeof line, "%s", nz(e->m.nodes[g->nodes[k]]->name));
        printf("%s%s", k ? ", " : "", line);
    }
    if (show < g->count)
        printf(", ... (%s more)", dra_thousands(g->count - show, a, sizeof a));
    printf("\n");
}

static void print_table(ectx_t *e)
{
    char a[32], line[DRA_WHY_TEXT_MAX + 256];
    dra_msg_format(line, sizeof line, "%s on %s node%s (release %s, %s allocator%s)", e->what,
                   dra_thousands(e->nexpl, a, sizeof a), e->nexpl == 1 ? "" : "s",
                   dra_alloc_release_label((dra_release_t)e->f.release),
                   dra_alloc_variant_name(dra_alloc_variant(&e->f)),
                   e->f.upstream_bugs ? ", upstream bugs" : "");
    printf("%s\n", line);
    printf("fits on %s node%s%s", dra_thousands(e->nfit, a, sizeof a), e->nfit == 1 ? "" : "s",
           e->nfit ? ": " : "\n");
    /* the fitting groups (one per number of devices) as one list of names */
    if (e->nfit) {
        group_t all = {0};
        all.nodes = malloc(e->nfit * sizeof *all.nodes);
        for (uint32_t gi = 0; all.nodes && gi < e->ngroups; gi++)
            for (uint32_t k = 0; e->groups[gi].why.kind == DRA_WHY_FITS && k < e->groups[gi].count; k++)
                all.nodes[all.count++] = e->groups[gi].nodes[k];
        if (all.nodes) {
            qsort(all.nodes, all.count, sizeof *all.nodes, cmp_u32);
            print_names(e, &all);
        } else {
            printf("\n");
        }
        free(all.nodes);
    }
    if (e->nexpl == e->nfit)
        return;
    printf("does not fit on %s node%s:\n", dra_thousands(e->nexpl - e->nfit, a, sizeof a),
           e->nexpl - e->nfit == 1 ? "" : "s");
    int w = 1;
    for (uint32_t gi = 0; gi < e->ngroups; gi++) {
        int ww = (int)strlen(dra_thousands(e->groups[gi].count, a, sizeof a));
        w = ww > w ? ww : w;
    }
    for (uint32_t gi = 0; gi < e->ngroups; gi++) {
        const group_t *g = &e->groups[gi];
        if (g->why.kind == DRA_WHY_FITS)
            continue;
        dra_msg_format(line, sizeof line, "%s", g->why.text);
        printf("  %*s node%s  %s\n", w, dra_thousands(g->count, a, sizeof a), g->count == 1 ? " " : "s",
               line);
        printf("  %*s        ", w, "");
        print_names(e, g);
    }
}

/* A JSON string of s; text that is not UTF-8 is written escaped (\xNN) rather than dropped. */
static json_t *jstr(const char *s)
{
    json_t *j = json_string(nz(s));
    if (!j) {
        char buf[4096];
        dra_msg_format(buf, sizeof buf, "%s", nz(s));
        j = json_string(buf);
    }
    return j;
}

/* One explanation as JSON; steps: with the allocator's allocateOne count (per node only). */
static json_t *why_json(const dra_why_t *w, bool steps)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "outcome", json_string(dra_outcome_name(w->outcome)));
    json_object_set_new(o, "kind", json_string(dra_why_kind_name(w->kind)));
    json_object_set_new(o, "reason", jstr(w->text));
    if (w->request[0])
        json_object_set_new(o, "request", jstr(w->request));
    if (w->class_name)
        json_object_set_new(o, "class", jstr(w->class_name));
    if (w->gate >= 0)
        json_object_set_new(o, "gate", json_string(dra_alloc_gate_name((dra_gate_t)w->gate)));
    if (w->kind != DRA_WHY_FITS && w->kind != DRA_WHY_FATAL && w->kind != DRA_WHY_NODE_FAILURE &&
        w->kind != DRA_WHY_SEARCH && w->kind != DRA_WHY_NODE_FILTER &&
        w->kind != DRA_WHY_NODE_RESOURCES && w->gate != DRA_GATE_EXTENDED_RESOURCE) {
        json_object_set_new(o, "need", json_integer(w->need));
        json_object_set_new(o, "left", json_integer(w->left));
    }
    if (steps)
        json_object_set_new(o, "allocate_one", json_integer((json_int_t)w->steps));
    return o;
}

static int print_json(ectx_t *e)
{
    json_t *root = json_object(), *claims = json_array(), *groups = json_array(),
           *fit = json_array(), *per = json_array();
    if (!root || !claims || !groups || !fit || !per) {
        json_decref(root);
        json_decref(claims);
        json_decref(groups);
        json_decref(fit);
        json_decref(per);
        return DRA_EXIT_ENV;
    }
    char rel[16];
    snprintf(rel, sizeof rel, "%s", dra_alloc_release_name((dra_release_t)e->f.release));
    json_object_set_new(root, "explained", jstr(e->what));
    json_object_set_new(root, "release", json_string(rel));
    json_object_set_new(root, "variant",
                        json_string(dra_alloc_variant_name(dra_alloc_variant(&e->f))));
    json_object_set_new(root, "upstream_bugs", json_boolean(e->f.upstream_bugs));
    for (uint32_t i = 0; i < e->nclaims; i++) {
        char cb[600];
        snprintf(cb, sizeof cb, "%s/%s", nz(e->claims[i]->namespace_), nz(e->claims[i]->name));
        json_array_append_new(claims, jstr(cb));
    }
    json_object_set_new(root, "claims", claims);
    if (e->pod) { /* the pod's extended resources a DeviceClass backs: name -> count */
        json_t *xr = json_object();
        for (uint32_t i = 0; xr && i < e->req.nscalar; i++)
            if (dra_extres_map_find(&e->xmap, e->req.scalar[i].name))
                json_object_set_new(xr, e->req.scalar[i].name,
                                    json_integer((json_int_t)e->req.scalar[i].value));
        if (xr)
            json_object_set_new(root, "extended_resources", xr);
    }
    json_object_set_new(root, "nodes", json_integer(e->nexpl));
    json_object_set_new(root, "fits", json_integer(e->nfit));
    for (uint32_t gi = 0; gi < e->ngroups; gi++) {
        const group_t *g = &e->groups[gi];
        json_t *go = why_json(&g->why, false), *nodes = json_array();
        if (!go || !nodes) {
            json_decref(go);
            json_decref(nodes);
            json_decref(root);
            json_decref(groups);
            json_decref(fit);
            json_decref(per);
            return DRA_EXIT_ENV;
        }
        for (uint32_t k = 0; k < g->count; k++) {
            json_array_append_new(nodes, jstr(e->m.nodes[g->nodes[k]]->name));
            if (g->why.kind == DRA_WHY_FITS)
                json_array_append_new(fit, jstr(e->m.nodes[g->nodes[k]]->name));
        }
        json_object_set_new(go, "count", json_integer(g->count));
        json_object_set_new(go, "nodes", nodes);
        json_array_append_new(groups, go);
    }
    json_object_set_new(root, "fit_nodes", fit);
    json_object_set_new(root, "groups", groups);
    for (uint32_t i = 0; i < e->nper; i++) {
        json_t *po = why_json(&e->per[i], true);
        if (!po)
            continue;
        json_object_set_new(po, "node", jstr(e->m.nodes[e->per_node[i]]->name));
        json_array_append_new(per, po);
    }
    json_object_set_new(root, "per_node", per);
    int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(root);
    if (rc != 0 || fputc('\n', stdout) == EOF)
        return DRA_EXIT_ENV;
    return DRA_EXIT_OK;
}

static void ctx_fini(ectx_t *e)
{
    for (uint32_t g = 0; g < e->ngroups; g++)
        free(e->groups[g].nodes);
    free(e->groups);
    free(e->hash);
    free(e->per);
    free(e->per_node);
    if (e->have_built)
        dra_scenario_built_fini(&e->built);
    if (e->have_scn)
        dra_scenario_fini(&e->scn);
    dra_taint_rules_fini(&e->rules);
    dra_diag_list_fini(&e->errs);
    dra_extres_usage_free(e->m.nnodes, e->preq, e->usage);
    dra_extres_map_free(&e->xmap);
    dra_arena_fini(&e->xarena);
    dra_model_fini(&e->m);
}

static int run(const opts_t *o)
{
    ectx_t *e = calloc(1, sizeof *e);
    if (!e)
        return DRA_EXIT_ENV;
    e->o = o;
    dra_model_init(&e->m);
    dra_arena_init(&e->xarena, 0);
    dra_taint_rules_init(&e->rules);
    dra_diag_list_init(&e->errs);
    int exitc = load(e);
    if (exitc == DRA_EXIT_OK)
        exitc = pick(e);
    if (exitc == DRA_EXIT_OK && e->nclaims == 0 && !e->pod) {
        fprintf(stderr, "drabench explain: %s: every claim is allocated already\n", e->what);
        exitc = DRA_EXIT_USAGE;
    }
    if (exitc == DRA_EXIT_OK && e->m.nnodes == 0) {
        fprintf(stderr, "drabench explain: the cluster has no nodes (no Node objects and no "
                        "ResourceSlice names a node)\n");
        exitc = DRA_EXIT_USAGE;
    }
    if (exitc == DRA_EXIT_OK)
        exitc = explain_all(e);
    if (exitc == DRA_EXIT_OK && o->nnodes && e->nexpl == 0) {
        fprintf(stderr, "drabench explain: no node of the cluster has the name given (--node)\n");
        exitc = DRA_EXIT_USAGE;
    }
    if (exitc == DRA_EXIT_OK) {
        qsort(e->groups, e->ngroups, sizeof *e->groups, cmp_group);
        if (o->json)
            exitc = print_json(e);
        else
            print_table(e);
        if (exitc == DRA_EXIT_OK && e->nfit == 0)
            exitc = DRA_EXIT_REGRESSION; /* 1: fits nowhere */
    }
    ctx_fini(e);
    free(e);
    return exitc;
}

/* Decimal only, as every option (files.h). */
static bool parse_u64(const char *s, uint64_t *out)
{
    unsigned long long v;
    if (!dra_io_parse_u64(s, &v))
        return false;
    *out = v;
    return true;
}

int dra_cmd_explain(int argc, char **argv)
{
    enum { O_SEED = 1000, O_SHAPE, O_PROGRESS };
    static const struct option lopts[] = {
        {"file", required_argument, NULL, 'f'},      {"scenario", required_argument, NULL, 's'},
        {"seed", required_argument, NULL, O_SEED},   {"claim", required_argument, NULL, 'c'},
        {"pod", required_argument, NULL, 'p'},       {"template", required_argument, NULL, 't'},
        {"shape", required_argument, NULL, O_SHAPE}, {"node", required_argument, NULL, 'n'},
        {"release", required_argument, NULL, 'r'},   {"feature", required_argument, NULL, 'F'},
        {"upstream-bugs", no_argument, NULL, 'b'},   {"max-steps", required_argument, NULL, 'S'},
        {"output", required_argument, NULL, 'o'},    {"list", required_argument, NULL, 'l'},
        {"progress", required_argument, NULL, O_PROGRESS},
        {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0}};
    opts_t o;
    memset(&o, 0, sizeof o);
    o.list = 5;
    o.files = calloc((size_t)argc + 1, sizeof *o.files);
    o.feats = calloc((size_t)argc + 1, sizeof *o.feats);
    o.nodes = calloc((size_t)argc + 1, sizeof *o.nodes);
    int ret = DRA_EXIT_OK, c;
    if (!o.files || !o.feats || !o.nodes) {
        ret = DRA_EXIT_ENV;
        goto out;
    }
    optind = 0;
    const char *arg;
    while ((c = dra_cli_getopt("explain", argc, argv, "f:s:c:p:t:n:r:F:bS:o:l:h", lopts, &arg)) != -1) {
        uint64_t v;
        switch (c) {
        case DRA_CLI_OPERAND:
            o.files[o.nfiles++] = (char *)arg;
            break;
        case 'f':
            o.files[o.nfiles++] = (char *)arg;
            break;
        case 's':
            o.scenario = arg;
            break;
        case O_SEED:
            if (!parse_u64(arg, &o.seed) || o.seed > INT64_MAX) {
                ret = dra_cli_usage_error("explain", "--seed wants a number from 0 to 2^63-1, got '%s'", arg);
                goto out;
            }
            o.seed_set = true;
            break;
        case 'c':
            o.claim = arg;
            break;
        case 'p':
            o.pod = arg;
            break;
        case 't':
            o.tmpl = arg;
            break;
        case O_SHAPE:
            o.shape = arg;
            break;
        case 'n':
            o.nodes[o.nnodes++] = arg;
            break;
        case 'r':
            o.release = arg;
            break;
        case 'F':
            o.feats[o.nfeats++] = arg;
            break;
        case 'b':
            o.bugs = true;
            break;
        case 'S':
            if (!parse_u64(arg, &o.max_steps)) {
                ret = dra_cli_usage_error("explain", "--max-steps wants a whole number (0 = no limit), got '%s'", arg);
                goto out;
            }
            o.max_steps_set = true;
            break;
        case 'o':
            if (!strcmp(arg, "json"))
                o.json = true;
            else if (strcmp(arg, "table") != 0) {
                ret = dra_cli_usage_error("explain", "unknown output format '%s' (table or json)", arg);
                goto out;
            }
            break;
        case 'l':
            if (!parse_u64(arg, &v) || v > UINT32_MAX) {
                ret = dra_cli_usage_error("explain", "--list wants a whole number, got '%s'", arg);
                goto out;
            }
            o.list = (uint32_t)v;
            break;
        case O_PROGRESS:
            if (!dra_progress_parse_when(arg, &o.progress)) {
                ret = dra_cli_usage_error("explain", "--progress: auto, always or never, got '%s'", arg);
                goto out;
            }
            break;
        case 'h':
            fputs(help, stdout);
            goto out;
        case DRA_CLI_SPLIT:
            break;
        default:
            ret = DRA_EXIT_USAGE;
            goto out;
        }
    }
    if ((o.claim != NULL) + (o.pod != NULL) + (o.tmpl != NULL) + (o.shape != NULL) > 1) {
        ret = dra_cli_usage_error("explain", "give at most one of --claim, --pod, --template, --shape");
        goto out;
    }
    ret = run(&o);
out:
    free(o.files);
    free(o.feats);
    free(o.nodes);
    return ret;
}
