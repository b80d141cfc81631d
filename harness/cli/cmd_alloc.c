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
#include <sys/stat.h>
#include <time.h>

#include "alloc/alloc.h"
#include "alloc/invariants.h"
#include "alloc/fast.h"
#include "cli.h"
#include "manifest.h"
#include "taintrule.h"
#include "walk.h"
#include "ydoc.h"

static const char help[] =
    "drabench alloc - allocate ResourceClaims with the reference allocator, or run conformance cases\n"
    "\n"
    "Usage: drabench alloc -f FILE|DIR... [options]\n"
    "       drabench alloc --test FILE|DIR...\n"
    "\n"
    "Reads Kubernetes manifests (DeviceClasses, ResourceSlices, ResourceClaims, templates, Pods,\n"
    "Nodes), allocates the claims of every pending pod in order (a template claim becomes\n"
    "<pod>-<claim>), trying the nodes in order unless --node is given, and prints the claims with\n"
    "status.allocation. Without pods, every unallocated claim is allocated. A summary goes to\n"
    "stderr. With --test, every file is an AllocationTest case: one PASS/FAIL line per case, the\n"
    "invariants are checked on every allocation.\n"
    "\n"
    "Options:\n"
    "  -f, --file PATH         manifest file or directory (repeatable)\n"
    "  -n, --node NAME         allocate on this node only (default: try nodes in order)\n"
    "  -r, --release R         release profile 1.34 | 1.35 | 1.36 (default 1.36)\n"
    "  -F, --feature GATE=B    feature gate override, e.g. DRADeviceTaints=false (repeatable)\n"
    "  -b, --upstream-bugs     reproduce the known upstream allocator bugs (default: fixed)\n"
    "  -A, --allocator NAME    reference | fast | both (default reference); --test with both:\n"
    "                          reference checks, and the fast allocator (with and without\n"
    "                          pruning) must decide identically (same allocateOne unpruned);\n"
    "                          with fast, expected allocateOne counts are upper bounds\n"
    "  -S, --max-steps N       search budget per allocate call in allocateOne calls; beyond it\n"
    "                          the outcome is Fatal \"filter operation aborted\" (default\n"
    "                          1000000 for the reference allocator, none for fast, whose\n"
    "                          pruning a budget turns off; 0 = no limit; a case's\n"
    "                          spec.maxSteps wins)\n"
    "  -o, --output FMT        yaml | json (default yaml)\n"
    "  -t, --test              run conformance cases from the paths given as arguments\n"
    "  -v, --verbose           --test: also print the outcome, allocateOne calls and allocate time\n"
    "                          of passing cases\n"
    "  -h, --help              show this help\n"
    "\n"
    "Examples:\n"
    "  drabench alloc -f ../shared/real-manifests/dra-example-driver --node node-1\n"
    "  drabench alloc -f cluster.yaml --release 1.35 --feature DRAPartitionableDevices=true -o json\n"
    "  drabench alloc --test corpora/conformance\n"
    "\n"
    "Exit status: 0 ok (all cases pass), 1 a case failed, 2 usage error or invalid input,\n"
    "3 an invariant was violated, 4 environment error.\n";

typedef struct opts {
    dra_alloc_features_t f;
    const char *node;
    bool json, verbose;
    dra_alloc_kind_t kind;
    bool both; /* --allocator both (differential) */
    bool max_steps_set; /* --max-steps given */
    uint64_t max_steps; /* --max-steps N (0 = unlimited) */
} opts_t;

/* Default search budget of the reference allocator in `alloc` (allocateOne calls per allocate
 * call; about 0.3 s in a release build): beyond it the outcome is Fatal "filter operation
 * aborted", the deterministic stand-in for the scheduler's Filter timeout. */
#define ALLOC_DEFAULT_MAX_STEPS 1000000u

/* The budget of an allocate call by allocator kind: --max-steps, else the default for the
 * reference; the fast allocator gets none by default (a budget turns its pruning off, fast.h). */
static uint64_t budget_for(const opts_t *o, dra_alloc_kind_t kind)
{
    if (o->max_steps_set)
        return o->max_steps;
    return kind == DRA_ALLOC_FAST ? 0 : ALLOC_DEFAULT_MAX_STEPS;
}

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

/* Read one manifest file ("-" = stdin) into the model and its DeviceTaintRules into rules. Does
 * not imply nodes (call dra_model_imply_nodes after the last file). */
static int read_with_rules(dra_model_t *m, dra_taint_rules_t *rules, const char *path,
                           dra_diag_list_t *errs)
{
    char *buf = NULL;
    size_t len = 0;
    dra_diag_t d;
    dra_diag_clear(&d);
    d.file = path;
    if (dra_cli_read_file(path, DRA_MANIFEST_MAX_FILE, &buf, &len, &d) != DRA_OK) {
        d.file = path;
        if (dra_diag_list_push(errs, &d) != DRA_OK)
            return DRA_ENOMEM;
        return d.code ? d.code : DRA_EIO;
    }
    int rc = dra_manifest_read_buffer(m, path, buf, len, errs);
    if (rc != DRA_ENOMEM) {
        /* the second reader parses the same bytes: a YAML error it shares with the first is
         * reported once */
        size_t before = errs->count;
        int r2 = dra_taint_rules_read_buffer(rules, m, path, buf, len, errs);
        rc = rc ? rc : r2;
        size_t keep = before;
        for (size_t i = before; i < errs->count; i++) {
            bool dup = false;
            for (size_t j = 0; j < before && !dup; j++)
                dup = errs->items[j].line == errs->items[i].line &&
                      errs->items[j].column == errs->items[i].column &&
                      strcmp(errs->items[j].msg, errs->items[i].msg) == 0;
            if (!dup)
                errs->items[keep++] = errs->items[i];
        }
        errs->count = keep;
    }
    free(buf);
    return rc;
}

/* ---- allocate mode --------------------------------------------------------------------------- */

/* One line on stderr built by dra_msg_vformat: claim, pod and node names from the manifests are
 * shown terminal-safe (a JSON name can carry an escape sequence). */
static void say(const char *fmt, ...) DRA_PRINTF(1, 2);
static void say(const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    dra_msg_vformat(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
}

static dra_claim_t *instantiate(dra_model_t *m, const dra_claim_t *tpl, const char *ns,
                                const char *name)
{
    dra_claim_t *c = dra_model_add_claim(m);
    if (!c)
        return NULL;
    *c = *tpl;
    c->is_template = false;
    c->allocation = NULL;
    c->namespace_ = dra_model_str(m, ns ? ns : "default");
    c->name = dra_model_str(m, name);
    return c;
}

static int run_allocate(const opts_t *o, char **paths, int npaths)
{
    dra_model_t m;
    dra_model_init(&m);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    int exitc = DRA_EXIT_OK;
    dra_alloc_state_t *st = NULL;
    dra_cel_cache_t *cel = NULL;
    dra_anyalloc_t al = {0};
    dra_taint_rules_t rules;
    dra_taint_rules_init(&rules);
    plist_t files = {0};
    int rc = DRA_OK;
    dra_walk_t walk;
    dra_walk_init(&walk, dra_walk_manifest_suffixes);
    exitc = collect(&walk, &files, paths, npaths);
    if (exitc != DRA_EXIT_OK) {
        free(files.v);
        dra_walk_fini(&walk);
        goto out;
    }
    for (size_t i = 0; i < files.n && rc != DRA_ENOMEM; i++) {
        int r2 = read_with_rules(&m, &rules, files.v[i], &errs);
        rc = rc ? rc : r2;
    }
    free(files.v);
    dra_walk_fini(&walk); /* the model holds its own copies of the file names */
    if (rc == DRA_OK)
        rc = dra_model_imply_nodes(&m);
    if (rc) {
        char buf[700];
        for (size_t i = 0; i < errs.count; i++)
            fprintf(stderr, "%s\n", dra_diag_format(&errs.items[i], buf, sizeof buf));
        exitc = rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
        goto out;
    }
    if (dra_alloc_state_new(&m, &o->f, &st) || dra_alloc_state_add_model_claims(st) ||
        dra_cel_cache_new(&cel)) {
        exitc = DRA_EXIT_ENV;
        goto out;
    }
    if (rules.n && dra_taint_rules_enabled(&o->f)) {
        dra_diag_t d;
        uint32_t hits = 0;
        rc = dra_taint_rules_apply(&rules, &m, cel, &hits, &d);
        if (rc) {
            fprintf(stderr, "drabench alloc: %s\n", rc == DRA_ENOMEM ? dra_strerror(rc) : d.msg);
            exitc = rc == DRA_ENOMEM ? DRA_EXIT_ENV : DRA_EXIT_USAGE;
            goto out;
        }
        fprintf(stderr, "%u DeviceTaintRule(s) applied: %u device taint(s) added\n", rules.n, hits);
    } else if (rules.n) {
        fprintf(stderr, "%u DeviceTaintRule(s) ignored: DRADeviceTaintRules is off in release 1.%u "
                        "(--feature DRADeviceTaintRules=true applies them)\n",
                rules.n, (unsigned)(o->f.release - 100));
    }
    dra_alloc_options_t ao = {0};
    ao.max_steps = budget_for(o, o->kind);
    if (dra_anyalloc_new(o->kind, &m, &o->f, st, cel, &ao, &al)) {
        exitc = DRA_EXIT_ENV;
        goto out;
    }
    /* work list: per pod (replica), the claims to allocate together */
    uint32_t nok = 0, nunsat = 0, nerr = 0;
    dra_claim_t *batch[64];
    uint32_t npods = m.npods;
    uint32_t nclaims0 = m.nclaims;
    dra_claim_t **initial = malloc((nclaims0 ? nclaims0 : 1) * sizeof *initial);
    if (!initial) {
        exitc = DRA_EXIT_ENV;
        goto out;
    }
    if (nclaims0)
        memcpy(initial, m.claims, nclaims0 * sizeof *initial);
    uint32_t nunits = npods ? 0 : nclaims0;
    for (uint32_t p = 0; p < npods; p++)
        nunits += (uint32_t)(m.pods[p]->replicas > 0 ? m.pods[p]->replicas : 1);
    uint32_t unit = 0;
    for (uint32_t p = 0; p < (npods ? npods : 1) && unit < nunits; p++) {
        const dra_pod_t *pod = npods ? m.pods[p] : NULL;
        int64_t reps = pod ? (pod->replicas > 0 ? pod->replicas : 1) : nclaims0;
        for (int64_t rep = 0; rep < reps; rep++, unit++) {
            uint32_t nb = 0;
            char podname[300];
            if (!pod) {
                if (!initial[rep]->allocation)
                    batch[nb++] = initial[rep];
                snprintf(podname, sizeof podname, "claim %s", nz(initial[rep]->name));
            } else {
                if (pod->node_name)
                    continue; /* already bound */
                if (reps > 1)
                    snprintf(podname, sizeof podname, "%s-%lld", nz(pod->name), (long long)rep);
                else
                    snprintf(podname, sizeof podname, "%s", nz(pod->name));
                for (uint32_t k = 0; k < pod->nclaims && nb < 64; k++) {
                    const dra_pod_claim_t *pc = &pod->claims[k];
                    dra_claim_t *c = NULL;
                    if (pc->claim_name) {
                        c = dra_model_find_claim(&m, pod->namespace_, pc->claim_name);
                    } else if (pc->template_name) {
                        const dra_claim_t *t = dra_model_find_template(&m, pod->namespace_, pc->template_name);
                        if (t) {
                            char nm[600];
                            snprintf(nm, sizeof nm, "%s-%s", podname, nz(pc->name));
                            c = instantiate(&m, t, pod->namespace_, nm);
                        }
                    }
                    if (!c) {
                        say("drabench alloc: pod %s: claim %s not found", podname, nz(pc->name));
                        nerr++;
                        continue;
                    }
                    if (!c->allocation)
                        batch[nb++] = c;
                }
            }
            if (!nb)
                continue;
            dra_outcome_t last = DRA_OUTCOME_UNSATISFIABLE;
            char msg[DRA_DIAG_MSG_MAX] = "";
            for (uint32_t ni = 0; ni < m.nnodes; ni++) {
                const dra_node_t *node = m.nodes[ni];
                if (o->node && strcmp(o->node, nz(node->name)) != 0)
                    continue;
                dra_alloc_outcome_t out;
                if (dra_anyalloc_allocate(&al, node, batch, nb, &m.arena, &out)) {
                    exitc = DRA_EXIT_ENV;
                    goto out;
                }
                last = out.kind;
                snprintf(msg, sizeof msg, "%s", out.msg);
                if (out.kind == DRA_OUTCOME_ALLOCATED) {
                    dra_inv_report_t irep;
                    if (dra_inv_check(&m, &o->f, st, cel, node, batch, out.allocations, nb, &irep) == DRA_OK &&
                        irep.nviolations) {
                        say("drabench alloc: %s: invariant violated: %s", podname, irep.first[0]);
                        exitc = DRA_EXIT_CORRECTNESS;
                    }
                    for (uint32_t k = 0; k < nb; k++) {
                        batch[k]->allocation = out.allocations[k];
                        if (dra_alloc_state_commit(st, out.allocations[k])) {
                            exitc = DRA_EXIT_ENV;
                            goto out;
                        }
                    }
                    say("%s: allocated on %s", podname, nz(node->name));
                    break;
                }
                if (out.kind == DRA_OUTCOME_FATAL)
                    break;
            }
            if (last == DRA_OUTCOME_ALLOCATED) {
                nok++;
            } else if (last == DRA_OUTCOME_UNSATISFIABLE) {
                nunsat++;
                say("%s: unsatisfiable on every node tried", podname);
            } else {
                nerr++;
                say("%s: %s: %s", podname, dra_outcome_name(last), msg);
            }
        }
    }
    free(initial);
    /* output: the claims only */
    dra_model_t outm;
    dra_model_init(&outm);
    for (uint32_t i = 0; i < m.nclaims; i++) {
        dra_claim_t *c = dra_model_add_claim(&outm);
        if (!c) {
            dra_model_fini(&outm);
            exitc = DRA_EXIT_ENV;
            goto out;
        }
        *c = *m.claims[i];
    }
    rc = o->json ? dra_manifest_write_json(&outm, stdout) : dra_manifest_write_yaml(&outm, stdout);
    dra_model_fini(&outm);
    fprintf(stderr, "%u allocated, %u unsatisfiable, %u failed (release 1.%u, %s allocator%s)\n",
            nok, nunsat, nerr, (unsigned)(o->f.release - 100),
            dra_alloc_variant_name(dra_alloc_variant(&o->f)),
            o->f.upstream_bugs ? ", upstream bugs" : "");
    if (rc)
        exitc = DRA_EXIT_ENV;
    else if (nerr && exitc == DRA_EXIT_OK)
        exitc = DRA_EXIT_REGRESSION;
out:
    dra_anyalloc_free(&al);
    dra_cel_cache_free(cel);
    dra_alloc_state_free(st);
    dra_taint_rules_fini(&rules);
    dra_diag_list_fini(&errs);
    dra_model_fini(&m);
    return exitc;
}

/* ---- test mode ------------------------------------------------------------------------------- */

typedef struct tcase {
    const dra_ynode_t *doc; /* the AllocationTest document */
    int ndocs;
    char err[512];
} tcase_t;

static int on_doc(const dra_ynode_t *root, void *ud)
{
    tcase_t *t = ud;
    const dra_ynode_t *k = dra_ynode_get(root, "kind");
    if (k && dra_ynode_is_scalar(k) && strcmp(k->text, "AllocationTest") == 0) {
        t->doc = root;
        t->ndocs++;
    }
    return DRA_OK;
}

static const char *scal(const dra_ynode_t *n)
{
    return n && dra_ynode_is_scalar(n) && !dra_ynode_is_null(n) ? n->text : NULL;
}

typedef struct fail {
    char why[1024];
    bool failed;
} fail_t;

static void failf(fail_t *f, const char *fmt, ...) DRA_PRINTF(2, 3);
static void failf(fail_t *f, const char *fmt, ...)
{
    if (f->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->why, sizeof f->why, fmt, ap);
    va_end(ap);
    f->failed = true;
}

static bool seq_strs_equal(const dra_ynode_t *seq, const char *const *v, uint32_t n)
{
    if (!seq || dra_ynode_is_null(seq))
        return n == 0;
    if (!dra_ynode_is_seq(seq) || seq->n != n)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (!scal(seq->vals[i]) || strcmp(scal(seq->vals[i]), nz(v[i])) != 0)
            return false;
    return true;
}

static bool qty_equal(const dra_ynode_t *y, const dra_quantity_t *q)
{
    const char *s = scal(y);
    dra_quantity_t a;
    if (!s || dra_quantity_parse(s, strlen(s), &a, NULL))
        return false;
    return dra_quantity_cmp(&a, q) == 0;
}

static void check_results(const dra_ynode_t *exp, const dra_allocation_t *al, const char *key, fail_t *f)
{
    if (!dra_ynode_is_seq(exp)) {
        failf(f, "expect.allocations.%s: not a list", key);
        return;
    }
    if (exp->n != al->nresults) {
        failf(f, "claim %s: %u results, expected %u", key, al->nresults, exp->n);
    }
    for (uint32_t i = 0; i < exp->n && i < al->nresults && !f->failed; i++) {
        const dra_ynode_t *e = exp->vals[i];
        const dra_result_t *r = &al->results[i];
        static const char *const keys[] = {"request", "driver", "pool", "device"};
        const char *vals[] = {r->request, r->driver, r->pool, r->device};
        for (int k = 0; k < 4; k++) {
            const char *want = scal(dra_ynode_get(e, keys[k]));
            if (want && strcmp(want, nz(vals[k])) != 0)
                failf(f, "claim %s result #%u: %s %s, expected %s", key, i, keys[k], nz(vals[k]), want);
        }
        const dra_ynode_t *aa = dra_ynode_get(e, "adminAccess");
        bool want_admin = aa && scal(aa) && strcmp(scal(aa), "true") == 0;
        if (want_admin != r->admin_access)
            failf(f, "claim %s result #%u: adminAccess %s, expected %s", key, i,
                  r->admin_access ? "true" : "unset", want_admin ? "true" : "unset");
        const dra_ynode_t *sh = dra_ynode_get(e, "shared");
        if (sh && scal(sh)) {
            bool want = strcmp(scal(sh), "true") == 0;
            if (want != (r->share_id != NULL))
                failf(f, "claim %s result #%u: shareID %s, expected %s", key, i,
                      r->share_id ? "set" : "unset", want ? "set" : "unset");
        }
        const dra_ynode_t *bc = dra_ynode_get(e, "bindingConditions");
        if (bc && !seq_strs_equal(bc, r->binding_conditions, r->nbinding_conditions))
            failf(f, "claim %s result #%u: bindingConditions differ", key, i);
        const dra_ynode_t *bfc = dra_ynode_get(e, "bindingFailureConditions");
        if (bfc && !seq_strs_equal(bfc, r->binding_failure_conditions, r->nbinding_failure_conditions))
            failf(f, "claim %s result #%u: bindingFailureConditions differ", key, i);
        const dra_ynode_t *tl = dra_ynode_get(e, "tolerations");
        if (tl) {
            uint32_t n = dra_ynode_is_seq(tl) ? tl->n : 0;
            if (n != r->ntolerations)
                failf(f, "claim %s result #%u: %u tolerations, expected %u", key, i, r->ntolerations, n);
            for (uint32_t t = 0; t < n && t < r->ntolerations; t++) {
                const char *k2 = scal(dra_ynode_get(tl->vals[t], "key"));
                if (strcmp(nz(k2), nz(r->tolerations[t].key)) != 0)
                    failf(f, "claim %s result #%u: toleration #%u key %s, expected %s", key, i, t,
                          nz(r->tolerations[t].key), nz(k2));
            }
        }
        const dra_ynode_t *cc = dra_ynode_get(e, "consumedCapacity");
        if (cc && dra_ynode_is_map(cc)) {
            if (cc->n != r->nconsumed)
                failf(f, "claim %s result #%u: %u consumedCapacity entries, expected %u", key, i,
                      r->nconsumed, cc->n);
            for (uint32_t k = 0; k < cc->n; k++) {
                bool found = false;
                for (uint32_t z = 0; z < r->nconsumed && !found; z++)
                    if (strcmp(nz(r->consumed[z].name), cc->keys[k]->text) == 0) {
                        found = true;
                        if (!qty_equal(cc->vals[k], &r->consumed[z].value)) {
                            char b2[64];
                            dra_quantity_format(&r->consumed[z].value, b2, sizeof b2);
                            failf(f, "claim %s result #%u: consumedCapacity %s = %s, expected %s",
                                  key, i, cc->keys[k]->text, b2, nz(scal(cc->vals[k])));
                        }
                    }
                if (!found)
                    failf(f, "claim %s result #%u: consumedCapacity %s missing", key, i, cc->keys[k]->text);
            }
        }
    }
}

/* set comparison of a node selector requirement list */
static bool reqs_equal(const dra_ynode_t *y, const dra_ns_req_t *r, uint32_t n)
{
    uint32_t ny = y && dra_ynode_is_seq(y) ? y->n : 0;
    if (ny != n)
        return false;
    for (uint32_t i = 0; i < ny; i++) {
        const dra_ynode_t *e = y->vals[i];
        const char *k = scal(dra_ynode_get(e, "key")), *op = scal(dra_ynode_get(e, "operator"));
        const dra_ynode_t *vals = dra_ynode_get(e, "values");
        bool found = false;
        for (uint32_t j = 0; j < n && !found; j++) {
            if (strcmp(nz(k), nz(r[j].key)) || strcmp(nz(op), nz(r[j].op_raw)))
                continue;
            uint32_t nv = vals && dra_ynode_is_seq(vals) ? vals->n : 0;
            if (nv != r[j].nvalues)
                continue;
            bool all = true;
            for (uint32_t a = 0; a < nv && all; a++) {
                bool in = false;
                for (uint32_t b = 0; b < nv && !in; b++)
                    in = scal(vals->vals[a]) && strcmp(scal(vals->vals[a]), r[j].values[b]) == 0;
                all = in;
            }
            found = all;
        }
        if (!found)
            return false;
    }
    return true;
}

static bool selector_equal(const dra_ynode_t *y, const dra_node_selector_t *s)
{
    if (!y || dra_ynode_is_null(y))
        return s == NULL;
    if (!s)
        return false;
    const dra_ynode_t *terms = dra_ynode_get(y, "nodeSelectorTerms");
    uint32_t nt = terms && dra_ynode_is_seq(terms) ? terms->n : 0;
    if (nt != s->nterms)
        return false;
    for (uint32_t i = 0; i < nt; i++) {
        bool found = false;
        for (uint32_t j = 0; j < s->nterms && !found; j++)
            found = reqs_equal(dra_ynode_get(terms->vals[i], "matchExpressions"), s->terms[j].exprs,
                               s->terms[j].nexprs) &&
                    reqs_equal(dra_ynode_get(terms->vals[i], "matchFields"), s->terms[j].fields,
                               s->terms[j].nfields);
        if (!found)
            return false;
    }
    return true;
}

static void check_config(const dra_ynode_t *exp, const dra_allocation_t *al, const char *key, fail_t *f)
{
    uint32_t n = exp && dra_ynode_is_seq(exp) ? exp->n : 0;
    if (n != al->nconfigs) {
        failf(f, "claim %s: %u config entries, expected %u", key, al->nconfigs, n);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        const dra_ynode_t *e = exp->vals[i];
        const dra_alloc_config_t *c = &al->configs[i];
        const char *src = scal(dra_ynode_get(e, "source"));
        const char *have = c->source == DRA_CONFIG_FROM_CLASS ? "FromClass" : "FromClaim";
        if (src && strcmp(src, have) != 0)
            failf(f, "claim %s config #%u: source %s, expected %s", key, i, have, src);
        if (!seq_strs_equal(dra_ynode_get(e, "requests"), c->requests, c->nrequests))
            failf(f, "claim %s config #%u: requests differ", key, i);
        const char *drv = scal(dra_ynode_get(dra_ynode_get(e, "opaque"), "driver"));
        if (drv && strcmp(drv, nz(c->opaque.driver)) != 0)
            failf(f, "claim %s config #%u: driver %s, expected %s", key, i, nz(c->opaque.driver), drv);
    }
}

/* ---- the AllocationTest schema (strict: an unknown key or a wrong shape makes the case
 * invalid, so that a misspelt expectation cannot pass unchecked) ------------------------------ */

typedef enum skind {
    SK_ANY,    /* anything (annotations, labels, opaque parameters) */
    SK_SCALAR, /* a scalar */
    SK_MAP,    /* a mapping with the listed keys only */
    SK_MAPOF,  /* a mapping with any keys, every value of `item` */
    SK_SEQ,    /* a sequence, every item of `item` */
    SK_SCALAR_OR_MAP, /* a scalar, or a mapping with the listed keys only */
} skind_t;

typedef struct sdef sdef_t;
typedef struct skey {
    const char *name;
    const sdef_t *def;
} skey_t;
struct sdef {
    skind_t kind;
    const skey_t *keys; /* SK_MAP, SK_SCALAR_OR_MAP: NULL-name terminated */
    const sdef_t *item; /* SK_MAPOF, SK_SEQ */
};

static const sdef_t s_any = {SK_ANY, NULL, NULL};
static const sdef_t s_scalar = {SK_SCALAR, NULL, NULL};
static const sdef_t s_scalars = {SK_SEQ, NULL, &s_scalar};
static const sdef_t s_map_any = {SK_MAPOF, NULL, &s_any};
static const sdef_t s_map_scalars = {SK_MAPOF, NULL, &s_scalar};
static const skey_t k_meta[] = {{"name", &s_scalar}, {"namespace", &s_scalar},
                                {"annotations", &s_map_any}, {"labels", &s_map_any}, {NULL, NULL}};
static const sdef_t s_meta = {SK_MAP, k_meta, NULL};
static const skey_t k_claim[] = {{"name", &s_scalar}, {"template", &s_scalar}, {NULL, NULL}};
static const sdef_t s_claim = {SK_SCALAR_OR_MAP, k_claim, NULL};
static const sdef_t s_claims = {SK_SEQ, NULL, &s_claim};
static const skey_t k_toleration[] = {{"key", &s_scalar},    {"operator", &s_scalar},
                                      {"value", &s_scalar},  {"effect", &s_scalar},
                                      {"tolerationSeconds", &s_scalar}, {NULL, NULL}};
static const sdef_t s_toleration = {SK_MAP, k_toleration, NULL};
static const sdef_t s_tolerations = {SK_SEQ, NULL, &s_toleration};
static const skey_t k_result[] = {{"request", &s_scalar},
                                  {"driver", &s_scalar},
                                  {"pool", &s_scalar},
                                  {"device", &s_scalar},
                                  {"adminAccess", &s_scalar},
                                  {"shared", &s_scalar},
                                  {"tolerations", &s_tolerations},
                                  {"bindingConditions", &s_scalars},
                                  {"bindingFailureConditions", &s_scalars},
                                  {"consumedCapacity", &s_map_scalars},
                                  {NULL, NULL}};
static const sdef_t s_result = {SK_MAP, k_result, NULL};
static const sdef_t s_results = {SK_SEQ, NULL, &s_result};
static const sdef_t s_allocations = {SK_MAPOF, NULL, &s_results};
static const skey_t k_nsreq[] = {{"key", &s_scalar}, {"operator", &s_scalar},
                                 {"values", &s_scalars}, {NULL, NULL}};
static const sdef_t s_nsreq = {SK_MAP, k_nsreq, NULL};
static const sdef_t s_nsreqs = {SK_SEQ, NULL, &s_nsreq};
static const skey_t k_nsterm[] = {{"matchExpressions", &s_nsreqs}, {"matchFields", &s_nsreqs},
                                  {NULL, NULL}};
static const sdef_t s_nsterm = {SK_MAP, k_nsterm, NULL};
static const sdef_t s_nsterms = {SK_SEQ, NULL, &s_nsterm};
static const skey_t k_nodesel[] = {{"nodeSelectorTerms", &s_nsterms}, {NULL, NULL}};
static const sdef_t s_nodesel = {SK_MAP, k_nodesel, NULL};
static const skey_t k_opaque[] = {{"driver", &s_scalar}, {"parameters", &s_any}, {NULL, NULL}};
static const sdef_t s_opaque = {SK_MAP, k_opaque, NULL};
static const skey_t k_config[] = {{"source", &s_scalar}, {"requests", &s_scalars},
                                  {"opaque", &s_opaque}, {NULL, NULL}};
static const sdef_t s_config_entry = {SK_MAP, k_config, NULL};
static const sdef_t s_config_list = {SK_SEQ, NULL, &s_config_entry};
static const sdef_t s_config = {SK_MAPOF, NULL, &s_config_list};
static const skey_t k_stats[] = {{"allocateOneInvocations", &s_scalar}, {NULL, NULL}};
static const sdef_t s_stats = {SK_MAP, k_stats, NULL};
static const skey_t k_expect[] = {{"outcome", &s_scalar},
                                  {"errorContains", &s_scalar},
                                  {"allocations", &s_allocations},
                                  {"nodeSelector", &s_nodesel},
                                  {"config", &s_config},
                                  {"stats", &s_stats},
                                  {"invariantViolations", &s_scalar},
                                  {NULL, NULL}};
static const sdef_t s_expect = {SK_MAP, k_expect, NULL};
static const skey_t k_spec[] = {{"release", &s_scalar},    {"features", &s_map_scalars},
                                {"include", &s_scalars},   {"node", &s_scalar},
                                {"claims", &s_claims},     {"allocated", &s_scalars},
                                {"expect", &s_expect},     {"upstreamBugs", &s_scalar},
                                {"maxSteps", &s_scalar},   {NULL, NULL}};
static const sdef_t s_spec = {SK_MAP, k_spec, NULL};
static const skey_t k_test[] = {{"apiVersion", &s_scalar}, {"kind", &s_scalar},
                                {"metadata", &s_meta},     {"spec", &s_spec},
                                {NULL, NULL}};
static const sdef_t s_test = {SK_MAP, k_test, NULL};

static const char *ykind(const dra_ynode_t *n)
{
    return dra_ynode_is_map(n) ? "a mapping" : dra_ynode_is_seq(n) ? "a list" : "a scalar";
}

/* Check n (at field path `at`) against def; the first problem goes to d. */
static int schema_check(const dra_ynode_t *n, const sdef_t *def, const char *file, char *at,
                        size_t atlen, dra_diag_t *d)
{
    if (!n || def->kind == SK_ANY || dra_ynode_is_null(n))
        return DRA_OK;
    bool ok;
    const char *want;
    switch (def->kind) {
    case SK_SCALAR:
        ok = dra_ynode_is_scalar(n);
        want = "a scalar";
        break;
    case SK_SEQ:
        ok = dra_ynode_is_seq(n);
        want = "a list";
        break;
    case SK_SCALAR_OR_MAP:
        ok = dra_ynode_is_scalar(n) || dra_ynode_is_map(n);
        want = "a name or a mapping";
        break;
    default:
        ok = dra_ynode_is_map(n);
        want = "a mapping";
        break;
    }
    if (!ok)
        return dra_diag_set(d, DRA_EVALIDATE, file, n->line, n->column, "%s: must be %s, not %s",
                            at, want, ykind(n));
    size_t base = strlen(at);
    if (def->kind == SK_SEQ) {
        for (uint32_t i = 0; i < n->n; i++) {
            snprintf(at + base, atlen - base, "[%u]", i);
            int rc = schema_check(n->vals[i], def->item, file, at, atlen, d);
            at[base] = '\0';
            if (rc)
                return rc;
        }
        return DRA_OK;
    }
    if (!dra_ynode_is_map(n))
        return DRA_OK; /* SK_SCALAR_OR_MAP given a scalar, or SK_SCALAR */
    for (uint32_t i = 0; i < n->n; i++) {
        const dra_ynode_t *k = n->keys[i];
        const char *kn = k->text ? k->text : "";
        const sdef_t *vd = def->item;
        if (def->kind != SK_MAPOF) {
            vd = NULL;
            for (const skey_t *e = def->keys; e->name && !vd; e++)
                if (strcmp(e->name, kn) == 0)
                    vd = e->def;
            if (!vd)
                return dra_diag_set(d, DRA_EVALIDATE, file, k->line, k->column,
                                    "unknown key \"%.200s\" in %s", kn, base ? at : "the document");
        }
        snprintf(at + base, atlen - base, "%s%.200s", base ? "." : "", kn);
        int rc = schema_check(n->vals[i], vd, file, at, atlen, d);
        at[base] = '\0';
        if (rc)
            return rc;
    }
    return DRA_OK;
}

static const char *const outcomes[] = {"Allocated", "Unsatisfiable", "NodeFailure", "Fatal",
                                       "Invalid", NULL};

/* The AllocationTest document doc of file: the schema, then what the schema cannot say
 * (spec and spec.expect.outcome are required, the outcome is one of the five). */
static int check_test_doc(const dra_ynode_t *doc, const char *file, dra_diag_t *d)
{
    char at[1024] = "";
    int rc = schema_check(doc, &s_test, file, at, sizeof at, d);
    if (rc)
        return rc;
    const dra_ynode_t *spec = dra_ynode_get(doc, "spec");
    if (!spec || !dra_ynode_is_map(spec))
        return dra_diag_set(d, DRA_EVALIDATE, file, doc->line, doc->column,
                            "AllocationTest has no spec");
    /* includes name regular files: not "-" (stdin), a directory or a device */
    const dra_ynode_t *inc = dra_ynode_get(spec, "include");
    for (uint32_t i = 0; inc && dra_ynode_is_seq(inc) && i < inc->n; i++) {
        const dra_ynode_t *e = inc->vals[i];
        struct stat sb;
        if (!scal(e) || stat(scal(e), &sb) != 0 || !S_ISREG(sb.st_mode))
            return dra_diag_set(d, DRA_EVALIDATE, file, e->line, e->column,
                                "spec.include[%u]: \"%.200s\" is not a readable regular file", i,
                                scal(e) ? scal(e) : "");
    }
    const dra_ynode_t *exp = dra_ynode_get(spec, "expect");
    if (!exp || !dra_ynode_is_map(exp))
        return dra_diag_set(d, DRA_EVALIDATE, file, spec->line, spec->column,
                            "spec.expect is missing: a case must say what it expects");
    const dra_ynode_t *oc = dra_ynode_get(exp, "outcome");
    if (!oc || !scal(oc))
        return dra_diag_set(d, DRA_EVALIDATE, file, exp->line, exp->column,
                            "spec.expect.outcome is missing (Allocated, Unsatisfiable, "
                            "NodeFailure, Fatal or Invalid)");
    for (const char *const *o = outcomes; *o; o++)
        if (strcmp(*o, scal(oc)) == 0)
            return DRA_OK;
    return dra_diag_set(d, DRA_EVALIDATE, file, oc->line, oc->column,
                        "spec.expect.outcome \"%.100s\" is none of Allocated, Unsatisfiable, "
                        "NodeFailure, Fatal, Invalid",
                        scal(oc));
}

/* 0 pass, 1 fail, 2 invalid */
static int run_case(const char *path, const opts_t *o, int *npass)
{
    (void)npass;
    char *buf = NULL;
    size_t len = 0;
    dra_diag_t d;
    dra_diag_clear(&d);
    if (dra_cli_read_file(path, DRA_MANIFEST_MAX_FILE, &buf, &len, &d)) {
        printf("FAIL %s: cannot read: %s\n", path, d.msg);
        return 2;
    }
    int result = 2;
    dra_model_t m;
    dra_model_init(&m);
    dra_arena_t ya;
    dra_arena_init(&ya, 0);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    tcase_t tc = {0};
    dra_alloc_state_t *st = NULL;
    dra_cel_cache_t *cel = NULL;
    dra_anyalloc_t al = {0};
    dra_arena_t out_arena;
    dra_arena_init(&out_arena, 0);
    const char *name = path;
    fail_t f = {0};
    char dbuf[700];
    char have_msg[DRA_DIAG_MSG_MAX + 32];
    dra_taint_rules_t rules;
    dra_taint_rules_init(&rules);
    if (dra_cel_cache_new(&cel)) {
        free(buf);
        dra_model_fini(&m);
        dra_arena_fini(&ya);
        dra_arena_fini(&out_arena);
        return 2;
    }
    snprintf(have_msg, sizeof have_msg, "Invalid");
    int rc = dra_ydoc_parse_file_buf(buf, len, path, &ya, 0, on_doc, &tc, &errs);
    if (rc || tc.ndocs != 1) {
        printf("FAIL %s: %s\n", path,
               rc ? (errs.count ? dra_diag_format(&errs.items[0], dbuf, sizeof dbuf) : "parse error")
                  : "expected exactly one AllocationTest document");
        goto done;
    }
    const dra_ynode_t *meta = dra_ynode_get(tc.doc, "metadata"), *spec = dra_ynode_get(tc.doc, "spec");
    if (scal(dra_ynode_get(meta, "name")))
        name = scal(dra_ynode_get(meta, "name"));
    if (check_test_doc(tc.doc, path, &d) != DRA_OK) {
        printf("FAIL %s (%s): invalid case: %s\n", name, path, dra_diag_format(&d, dbuf, sizeof dbuf));
        goto done;
    }
    const dra_ynode_t *exp = dra_ynode_get(spec, "expect");
    const char *want = scal(dra_ynode_get(exp, "outcome"));
    const char *ec = scal(dra_ynode_get(exp, "errorContains"));
    bool want_invalid = want && strcmp(want, "Invalid") == 0; /* drabench extension */
    rc = dra_manifest_read_buffer(&m, path, buf, len, &errs);
    if (rc != DRA_ENOMEM) {
        int r2 = dra_taint_rules_read_buffer(&rules, &m, path, buf, len, &errs);
        rc = rc ? rc : r2;
    }
    const dra_ynode_t *inc = dra_ynode_get(spec, "include");
    for (uint32_t i = 0; !rc && inc && dra_ynode_is_seq(inc) && i < inc->n; i++)
        if (scal(inc->vals[i]))
            rc = read_with_rules(&m, &rules, scal(inc->vals[i]), &errs);
    if (rc) {
        if (rc == DRA_ENOMEM)
            goto done;
        result = 1;
        if (want_invalid) {
            /* the case passes when loading or validation rejects the objects with the message */
            bool found = !ec;
            for (size_t i = 0; i < errs.count && !found; i++)
                found = strstr(errs.items[i].msg, ec) != NULL;
            if (!found)
                failf(&f, "objects rejected, but no error contains \"%s\": %s", nz(ec),
                      errs.count ? dra_diag_format(&errs.items[0], dbuf, sizeof dbuf) : dra_strerror(rc));
            snprintf(have_msg, sizeof have_msg, "Invalid: %s",
                     errs.count ? dra_diag_format(&errs.items[0], dbuf, sizeof dbuf) : dra_strerror(rc));
            goto report;
        }
        printf("FAIL %s (%s): invalid objects: %s\n", name, path,
               errs.count ? dra_diag_format(&errs.items[0], dbuf, sizeof dbuf) : dra_strerror(rc));
        result = 2;
        goto done;
    }
    if (want_invalid) {
        result = 1;
        failf(&f, "objects loaded without error, expected Invalid%s%s", ec ? " with " : "", nz(ec));
        goto report;
    }
    if (dra_model_imply_nodes(&m))
        goto done;
    /* features */
    dra_alloc_features_t feat = o->f;
    const char *rel = scal(dra_ynode_get(spec, "release"));
    if (rel) {
        dra_release_t r;
        if (dra_alloc_release_parse(rel, &r, &d)) {
            printf("FAIL %s (%s): %s\n", name, path, d.msg);
            goto done;
        }
        bool bugs = feat.upstream_bugs;
        dra_alloc_features_init(&feat, r);
        feat.upstream_bugs = bugs;
    }
    const dra_ynode_t *ub = dra_ynode_get(spec, "upstreamBugs"); /* drabench extension */
    if (ub && dra_ynode_bool(ub, path, "spec.upstreamBugs", &feat.upstream_bugs, &d)) {
        printf("FAIL %s (%s): %s\n", name, path, d.msg);
        goto done;
    }
    const dra_ynode_t *fs = dra_ynode_get(spec, "features");
    for (uint32_t i = 0; fs && dra_ynode_is_map(fs) && i < fs->n; i++) {
        bool on = false;
        if (dra_ynode_bool(fs->vals[i], path, "spec.features", &on, &d) ||
            dra_alloc_features_set_gate(&feat, fs->keys[i]->text, on, &d)) {
            printf("FAIL %s (%s): %s\n", name, path, d.msg);
            goto done;
        }
    }
    /* DeviceTaintRules: patched into the devices as the scheduler's slice tracker does */
    if (rules.n && dra_taint_rules_enabled(&feat) &&
        dra_taint_rules_apply(&rules, &m, cel, NULL, &d) != DRA_OK) {
        printf("FAIL %s (%s): %s\n", name, path, d.msg);
        goto done;
    }
    /* node */
    const char *nodename = scal(dra_ynode_get(spec, "node"));
    dra_node_t tmpnode = {0};
    const dra_node_t *node = nodename ? dra_model_find_node(&m, nodename) : NULL;
    if (!node) {
        tmpnode.name = nodename ? nodename : "node-1";
        node = &tmpnode;
    }
    /* claims */
    const dra_ynode_t *cl = dra_ynode_get(spec, "claims");
    uint32_t nc = cl && dra_ynode_is_seq(cl) ? cl->n : 0;
    dra_claim_t **claims = dra_arena_calloc(&out_arena, nc ? nc : 1, sizeof *claims, 8);
    const char **keys = dra_arena_calloc(&out_arena, nc ? nc : 1, sizeof *keys, 8);
    if (!claims || !keys)
        goto done;
    for (uint32_t i = 0; i < nc; i++) {
        const dra_ynode_t *e = cl->vals[i];
        const char *cn = scal(e) ? scal(e) : scal(dra_ynode_get(e, "name"));
        const char *tn = scal(dra_ynode_get(e, "template"));
        if (!cn) {
            printf("FAIL %s (%s): spec.claims[%u]: missing name\n", name, path, i);
            goto done;
        }
        keys[i] = cn;
        char ns[256] = "default";
        const char *base = cn;
        if (tn) {
            const char *sl = strchr(tn, '/');
            if (sl) {
                snprintf(ns, sizeof ns, "%.*s", (int)(sl - tn), tn);
                tn = sl + 1;
            }
            const dra_claim_t *t = dra_model_find_template(&m, ns, tn);
            if (!t) {
                printf("FAIL %s (%s): template %s/%s not found\n", name, path, ns, tn);
                goto done;
            }
            claims[i] = instantiate(&m, t, ns, cn);
        } else {
            const char *sl = strchr(cn, '/');
            if (sl) {
                snprintf(ns, sizeof ns, "%.*s", (int)(sl - cn), cn);
                base = sl + 1;
            }
            claims[i] = dra_model_find_claim(&m, ns, base);
        }
        if (!claims[i]) {
            printf("FAIL %s (%s): claim %s not found\n", name, path, cn);
            goto done;
        }
    }
    if (dra_alloc_state_new(&m, &feat, &st))
        goto done;
    const dra_ynode_t *alc = dra_ynode_get(spec, "allocated");
    for (uint32_t i = 0; alc && dra_ynode_is_seq(alc) && i < alc->n; i++) {
        const char *cn = scal(alc->vals[i]);
        char ns[256] = "default";
        const char *base = cn ? cn : "";
        const char *sl = strchr(base, '/');
        if (sl) {
            snprintf(ns, sizeof ns, "%.*s", (int)(sl - base), base);
            base = sl + 1;
        }
        const dra_claim_t *c = dra_model_find_claim(&m, ns, base);
        if (!c || !c->allocation) {
            printf("FAIL %s (%s): allocated claim %s not found or has no status.allocation\n", name,
                   path, nz(cn));
            goto done;
        }
        if (dra_alloc_state_commit(st, c->allocation))
            goto done;
    }
    uint64_t digest0 = dra_alloc_state_digest(st);
    dra_alloc_options_t ao = {0};
    ao.share_seed = 1;
    const dra_ynode_t *ms = dra_ynode_get(spec, "maxSteps"); /* drabench extension */
    if (ms) {
        int64_t v = 0;
        if (dra_ynode_int64(ms, path, "spec.maxSteps", &v, &d) != DRA_OK || v < 0) {
            printf("FAIL %s (%s): %s\n", name, path, v < 0 ? "spec.maxSteps: negative" : d.msg);
            goto done;
        }
        ao.max_steps = (uint64_t)v;
    } else {
        ao.max_steps = budget_for(o, o->kind);
    }
    if (dra_anyalloc_new(o->kind, &m, &feat, st, cel, &ao, &al))
        goto done;
    dra_alloc_outcome_t out;
    struct timespec ta, tb;
    clock_gettime(CLOCK_MONOTONIC, &ta);
    if (dra_anyalloc_allocate(&al, node, claims, nc, &out_arena, &out))
        goto done;
    clock_gettime(CLOCK_MONOTONIC, &tb);
    /* The fast runs of --allocator both: under the case's or the given budget as the reference;
     * under the default budget only when the reference ran into it (else the reference's count
     * bounds theirs, and without a budget the pruning is on). */
    dra_alloc_options_t fao = ao;
    if (!ms && !o->max_steps_set && !(ao.max_steps && out.stats.allocate_one > ao.max_steps))
        fao.max_steps = 0;
    for (int pr = 0; o->both && pr < 2; pr++) { /* differential: fast without / with pruning */
        dra_fast_t *fa = NULL;
        dra_alloc_outcome_t fo;
        char why[DRA_DIAG_MSG_MAX * 2 + 64];
        if (dra_fast_new(&m, &feat, st, cel, &fao, &fa))
            goto done;
        dra_fast_set_pruning(fa, pr == 1);
        int frc = dra_fast_allocate(fa, node, claims, nc, &out_arena, &fo);
        if (frc)
            failf(&f, "fast allocator: %s", dra_strerror(frc));
        else if (dra_alloc_outcome_differs(&out, &fo, why, sizeof why))
            failf(&f, "fast allocator%s differs: %s", pr ? "" : " (no pruning)", why);
        else if (!pr && fo.stats.allocate_one != out.stats.allocate_one)
            failf(&f, "fast allocator (no pruning): allocateOne %llu, reference %llu",
                  (unsigned long long)fo.stats.allocate_one,
                  (unsigned long long)out.stats.allocate_one);
        dra_fast_free(fa);
    }
    double alloc_ms = (double)(tb.tv_sec - ta.tv_sec) * 1e3 + (double)(tb.tv_nsec - ta.tv_nsec) / 1e6;
    result = 1;
    const char *have = dra_outcome_name(out.kind);
    if (!want || strcmp(want, have) != 0) {
        failf(&f, "outcome %s%s%s, expected %s", have, out.msg[0] ? ": " : "", out.msg, nz(want));
    }
    if (ec && !strstr(out.msg, ec))
        failf(&f, "error \"%s\" does not contain \"%s\"", out.msg, ec);
    if (out.kind == DRA_OUTCOME_ALLOCATED) {
        const dra_ynode_t *ea = dra_ynode_get(exp, "allocations");
        for (uint32_t i = 0; ea && dra_ynode_is_map(ea) && i < ea->n; i++) {
            uint32_t k = 0;
            while (k < nc && strcmp(keys[k], ea->keys[i]->text) != 0)
                k++;
            if (k == nc) {
                failf(&f, "expect.allocations: unknown claim %s", ea->keys[i]->text);
                break;
            }
            check_results(ea->vals[i], out.allocations[k], keys[k], &f);
        }
        const dra_ynode_t *es = dra_ynode_get(exp, "nodeSelector");
        if (es)
            for (uint32_t k = 0; k < nc; k++)
                if (!selector_equal(es, out.allocations[k]->node_selector))
                    failf(&f, "claim %s: node selector differs from expect.nodeSelector", keys[k]);
        const dra_ynode_t *ecf = dra_ynode_get(exp, "config");
        for (uint32_t i = 0; ecf && dra_ynode_is_map(ecf) && i < ecf->n; i++)
            for (uint32_t k = 0; k < nc; k++)
                if (strcmp(keys[k], ecf->keys[i]->text) == 0)
                    check_config(ecf->vals[i], out.allocations[k], keys[k], &f);
        dra_inv_report_t rep;
        bool want_viol = false; /* drabench extension: expect.invariantViolations (bug cases) */
        const dra_ynode_t *iv = dra_ynode_get(exp, "invariantViolations");
        if (iv && dra_ynode_bool(iv, path, "expect.invariantViolations", &want_viol, NULL))
            failf(&f, "expect.invariantViolations: expected true or false");
        if (dra_inv_check(&m, &feat, st, cel, node, claims, out.allocations, nc, &rep) == DRA_OK) {
            if (rep.nviolations && !want_viol)
                failf(&f, "invariant violated (%u): %s", rep.nviolations, rep.first[0]);
            else if (!rep.nviolations && want_viol)
                failf(&f, "expected an invariant violation, found none");
        }
        /* commit + release restores the state */
        for (uint32_t k = 0; k < nc; k++)
            if (dra_alloc_state_commit(st, out.allocations[k]))
                goto done;
        for (uint32_t k = nc; k-- > 0;)
            if (dra_alloc_state_release(st, out.allocations[k]))
                failf(&f, "release of claim %s failed", keys[k]);
        if (dra_alloc_state_digest(st) != digest0)
            failf(&f, "state digest differs after commit + release");
    }
    const dra_ynode_t *stats = dra_ynode_get(exp, "stats");
    const dra_ynode_t *ai = dra_ynode_get(stats, "allocateOneInvocations");
    if (ai) {
        int64_t v = 0;
        if (dra_ynode_int64(ai, path, "expect.stats.allocateOneInvocations", &v, NULL) == DRA_OK &&
            ((uint64_t)v != out.stats.allocate_one &&
             (o->kind != DRA_ALLOC_FAST || (uint64_t)v < out.stats.allocate_one)))
            failf(&f, "allocateOneInvocations %llu, expected %lld",
                  (unsigned long long)out.stats.allocate_one, (long long)v);
    }
    snprintf(have_msg, sizeof have_msg, "%s%s%s (allocateOne %llu, %.2f ms)", have,
             out.msg[0] ? ": " : "", out.msg, (unsigned long long)out.stats.allocate_one, alloc_ms);
report:
    if (f.failed) {
        printf("FAIL %s (%s): %s\n", name, path, f.why);
        result = 1;
    } else {
        if (o->verbose)
            printf("PASS %s: %s\n", name, have_msg);
        else
            printf("PASS %s\n", name);
        result = 0;
    }
done:
    dra_anyalloc_free(&al);
    dra_cel_cache_free(cel);
    dra_alloc_state_free(st);
    dra_taint_rules_fini(&rules);
    dra_arena_fini(&out_arena);
    dra_diag_list_fini(&errs);
    dra_arena_fini(&ya);
    dra_model_fini(&m);
    free(buf);
    return result;
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
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t i = 0; i < files.n; i++) {
        int r = run_case(files.v[i], o, &npass);
        if (r == 0)
            npass++;
        else if (r == 1)
            nfail++;
        else
            ninvalid++;
    }
    free(files.v);
    dra_walk_fini(&walk);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fflush(stdout);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
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
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    opts_t o;
    memset(&o, 0, sizeof o);
    dra_alloc_features_init(&o.f, DRA_RELEASE_DEFAULT);
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
    while ((c = getopt_long(argc, argv, "f:n:r:F:bo:tvA:S:h", lopts, NULL)) != -1) {
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
            o.verbose = true;
            break;
        case 'S': {
            char *end = NULL;
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (optarg[0] < '0' || optarg[0] > '9' || *end || errno) {
                ret = dra_cli_usage_error("alloc", "--max-steps wants a whole number (0 = no "
                                                   "limit), got '%s'", optarg);
                goto out;
            }
            o.max_steps = v;
            o.max_steps_set = true;
            break;
        }
        case 'A':
            o.both = strcmp(optarg, "both") == 0;
            if (!o.both && dra_alloc_kind_parse(optarg, &o.kind)) {
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
    dra_alloc_features_init(&o.f, rel);
    o.f.upstream_bugs = bugs;
    for (int i = 0; i < nfeats; i++)
        if (dra_alloc_features_set(&o.f, feats[i], &d)) {
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
