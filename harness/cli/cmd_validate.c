/* cmd_validate.c - `drabench validate FILE|DIR...`: read manifests, report every problem. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "alloc/alloc.h"
#include "cli.h"
#include "escape.h"
#include "cel/cel.h"
#include "manifest.h"
#include "progress.h"
#include "scenario.h"
#include "scencheck.h"
#include "walk.h"

static const char help[] =
    "drabench validate - check Kubernetes DRA manifests as the API server and allocator would\n"
    "\n"
    "Usage: drabench validate [options] FILE|DIR...\n"
    "\n"
    "Reads ResourceSlices, DeviceClasses, ResourceClaims, ResourceClaimTemplates (resource.k8s.io\n"
    "v1, v1beta2, v1beta1, v1alpha3), Pods, workloads and Nodes from YAML or JSON files, or from\n"
    "directories walked recursively (*.yaml, *.yml, *.json), and lists every problem on stderr as\n"
    "file:line:col: Kind/name: field.path: reason, followed by a summary line. Every CEL\n"
    "selector is compiled and its estimated cost checked against the limit, as at admission.\n"
    "Each file is checked on its own (a directory of unrelated examples is fine); with --cluster\n"
    "all inputs are one cluster, so names must be unique across files and a pool's slices and\n"
    "counter sets may be spread over several files.\n"
    "Rules that depend on the Kubernetes release are warnings unless --release is given; required\n"
    "fields that documentation examples trim (a slice's driver, pool, node scoping) are warnings\n"
    "unless --strict is given.\n"
    "A drabench scenario file (kind: Scenario) is loaded, its cluster built and its workload\n"
    "checked against it: every mix entry must name existing device classes whose selectors, and\n"
    "the request's, compile and read only attributes and capacities the class's devices have;\n"
    "constraints must name an attribute they have; each entry must fit some node of the empty\n"
    "cluster (else the count larger than any node holds, the selector no device passes with the\n"
    "values offered - the MIG profiles of each node profile -, or the release / feature gate that\n"
    "withholds the devices is the error, at its field); `expect: unsatisfiable` entries must fit\n"
    "none. Warnings: a steady workload too short to reach steady state, a stopAfter that ends a\n"
    "fill workload early. With --cluster every ResourceClaim and ResourceClaimTemplate of the\n"
    "inputs must name a class whose selectors, and its own, match a device (drabench gen output).\n"
    "\n"
    "Options:\n"
    "  -c, --cluster       check all inputs together as one cluster          (default: per file)\n"
    "  -r, --release VER   apply the rules of Kubernetes 1.34 ... 1.37 or 1.38-pre (default: any)\n"
    "  -s, --strict        report incomplete objects as errors                 (default: warnings)\n"
    "  -o, --output FMT    text, or json: {\"files\": [{\"file\", \"valid\", \"errors\": [...],\n"
    "                      \"warnings\": [...], \"errors_not_listed\"}], \"summary\": {...}} on stdout\n"
    "                      (default: text; errors beyond 10,000 per file are counted, not listed)\n"
    "  -q, --quiet         do not print warnings or the summary line\n"
    "      --progress W    auto | always | never: a bar of files checked on stderr (auto: when\n"
    "                      stderr is a terminal and CI is unset)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Examples:\n"
    "  drabench validate ../shared/real-manifests\n"
    "  drabench validate --release 1.35 --strict slices.yaml claims/\n"
    "  drabench validate --cluster -o json cluster/ | jq '.files[] | select(.valid == false)'\n"
    "\n"
    "Exit status: 0 all valid, 2 invalid input or usage error, 4 a file could not be read.\n";

static void print_list(const dra_diag_list_t *l, const char *sev)
{
    char buf[DRA_DIAG_MSG_MAX + 512];
    for (size_t i = 0; i < l->count; i++) {
        const dra_diag_t *d = &l->items[i];
        /* dra_msg_format: a file name from a directory walk is shown terminal-safe */
        if (d->file && d->line)
            dra_msg_format(buf, sizeof buf, "%s:%u:%u: %s: %s", d->file, d->line, d->column, sev,
                           d->msg);
        else if (d->file)
            dra_msg_format(buf, sizeof buf, "%s: %s: %s", d->file, sev, d->msg);
        else
            dra_msg_format(buf, sizeof buf, "%s: %s", sev, d->msg);
        fprintf(stderr, "%s\n", buf);
    }
    if (l->dropped)
        fprintf(stderr, "... and %zu more %ss not shown\n", l->dropped, sev);
}

/* Diagnostics as JSON objects {"file", "line", "column", "message"}; every entry of the list
 * is written (json_pack would silently drop one whose strings are not UTF-8): the file as a path
 * (losslessly, escape.h), the message as text. */
static json_t *diags_json(const dra_diag_list_t *l)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < l->count; i++) {
        const dra_diag_t *d = &l->items[i];
        json_t *o = json_pack("{s:o, s:i, s:i, s:o}", "file",
                              dra_esc_path_json(d->file ? d->file : ""), "line", (int)d->line,
                              "column", (int)d->column, "message", dra_esc_text_json(d->msg));
        if (!o || json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

/* ---- CEL selectors: compiled and cost-checked as the API server does at admission ---------- */

typedef struct celck {
    dra_cel_cache_t *cache; /* one compile per distinct expression text (errors cached too) */
    dra_diag_list_t *errs;
    const char *kind, *name;
    int rc; /* DRA_ENOMEM when it happened */
} celck_t;

/* One diagnostic "Kind/name: path: msg" at the expression's position. */
static void cel_error(celck_t *c, const dra_srcpos_t *pos, const char *path, const char *msg)
{
    (void)dra_diag_list_add(c->errs, DRA_EVALIDATE, pos ? pos->file : NULL, pos ? pos->line : 0,
                            pos ? pos->column : 0, "%s/%s: %s: %s", c->kind,
                            c->name ? c->name : "<unnamed>", path, msg);
}

/* One expression: a selector, or (derived) a derived attribute's (DRA CEL with the attribute
 * result rule, core/cel/derived.c). */
static void cel_check_expr(celck_t *c, const char *src, bool derived, const dra_srcpos_t *pos,
                           const char *p)
{
    if (!src || strlen(src) > DRA_CEL_MAX_LEN)
        return; /* missing or too long: the structural checks say so */
    const dra_cel_prog_t *prog = NULL;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = derived ? dra_cel_cache_get_derived(c->cache, src, &prog, &d)
                     : dra_cel_cache_get(c->cache, src, &prog, &d);
    uint64_t cost = 0;
    char msg[DRA_DIAG_MSG_MAX + 64];
    if (rc == DRA_ENOMEM) {
        c->rc = rc;
    } else if (rc != DRA_OK) {
        snprintf(msg, sizeof msg, "compilation failed: %s", d.msg); /* <input>:1:col */
        cel_error(c, pos, p, msg);
    } else if ((rc = dra_cel_estimate_cost(prog, &cost)) != DRA_OK) {
        c->rc = rc;
    } else if (cost > DRA_CEL_MAX_COST) {
        snprintf(msg, sizeof msg,
                 "too complex, exceeds cost limit (estimated cost %llu, limit %llu)",
                 (unsigned long long)cost, (unsigned long long)DRA_CEL_MAX_COST);
        cel_error(c, pos, p, msg);
    }
}

static void cel_check_selectors(celck_t *c, const dra_selector_t *sel, uint32_t n,
                                const dra_srcpos_t *fallback, const char *path)
{
    for (uint32_t i = 0; i < n && c->rc == DRA_OK; i++) {
        char p[400];
        snprintf(p, sizeof p, "%s[%u].cel.expression", path, i);
        cel_check_expr(c, sel[i].cel, false, sel[i].pos.line ? &sel[i].pos : fallback, p);
    }
}

static void cel_check_request(celck_t *c, const dra_exact_request_t *r, const dra_srcpos_t *pos,
                              const char *path)
{
    char p[320]; /* path is at most 299 bytes */
    snprintf(p, sizeof p, "%s.selectors", path);
    cel_check_selectors(c, r->selectors, r->nselectors, r->pos.line ? &r->pos : pos, p);
    for (uint32_t i = 0; i < r->nderived && c->rc == DRA_OK; i++) {
        char pd[360];
        snprintf(pd, sizeof pd, "%s.derivedAttributes[%u].expression", path, i);
        const dra_srcpos_t *dp = r->derived[i].pos.line ? &r->derived[i].pos
                                 : r->pos.line          ? &r->pos
                                                        : pos;
        cel_check_expr(c, r->derived[i].expr, true, dp, pd);
    }
}

static void cel_check_claim(celck_t *c, const dra_claim_t *cl)
{
    c->kind = cl->is_template ? "ResourceClaimTemplate" : "ResourceClaim";
    c->name = cl->name;
    const char *spec = cl->is_template ? "spec.spec" : "spec";
    for (uint32_t i = 0; i < cl->nrequests; i++) {
        const dra_request_t *r = &cl->requests[i];
        const dra_srcpos_t *pos = r->pos.line ? &r->pos : &cl->pos;
        char p[300];
        if (r->exactly) {
            snprintf(p, sizeof p, "%s.devices.requests[%u].exactly", spec, i);
            cel_check_request(c, r->exactly, pos, p);
        }
        for (uint32_t k = 0; k < r->nfirst_available; k++) {
            snprintf(p, sizeof p, "%s.devices.requests[%u].firstAvailable[%u]", spec, i, k);
            cel_check_request(c, &r->first_available[k], pos, p);
        }
    }
}

/* Every CEL selector (and derived attribute expression) of the model's DeviceClasses,
 * ResourceClaims and ResourceClaimTemplates: a compile error (syntax, types, an invalid regular
 * expression literal in matches()) or an estimated cost above DRA_CEL_MAX_COST is an error at
 * the expression's file:line:col, as the API server rejects such objects. Returns DRA_OK or
 * DRA_ENOMEM. */
static int validate_cel(const dra_model_t *m, dra_diag_list_t *errs)
{
    celck_t c = {.errs = errs};
    if (dra_cel_cache_new(&c.cache) != DRA_OK)
        return DRA_ENOMEM;
    for (uint32_t i = 0; i < m->nclasses && c.rc == DRA_OK; i++) {
        const dra_device_class_t *cl = m->classes[i];
        c.kind = "DeviceClass";
        c.name = cl->name;
        cel_check_selectors(&c, cl->selectors, cl->nselectors, &cl->pos, "spec.selectors");
    }
    for (uint32_t i = 0; i < m->nclaims && c.rc == DRA_OK; i++)
        cel_check_claim(&c, m->claims[i]);
    for (uint32_t i = 0; i < m->ntemplates && c.rc == DRA_OK; i++)
        cel_check_claim(&c, m->templates[i]);
    dra_cel_cache_free(c.cache);
    return c.rc;
}

typedef struct vtotals {
    unsigned long long slices, devices, classes, claims, templates, pods, nodes, skipped;
    size_t files, invalid, errors, warnings;
    int env; /* a file could not be read, or out of memory */
} vtotals_t;

typedef struct vctx {
    const dra_validate_opts_t *vo;
    int quiet, json;
    vtotals_t t;
    json_t *files; /* -o json: one entry per unit */
    dra_progress_t prog;
    size_t nfiles; /* files to check (progress total) */
} vctx_t;

/* Validate the model m read from `what` (a file, or the whole input with --cluster). */
static void validate_unit(vctx_t *c, const char *what, dra_model_t *m, int rrc,
                          dra_diag_list_t *errs)
{
    dra_diag_list_t warns;
    dra_diag_list_init(&warns);
    int vrc = dra_manifest_validate_ex(m, c->vo, errs, &warns);
    if (validate_cel(m, errs) == DRA_ENOMEM)
        vrc = DRA_ENOMEM;
    size_t nerr = errs->count + errs->dropped, nwarn = warns.count + warns.dropped;
    if (c->json) {
        json_t *o = json_pack("{s:o, s:b, s:o, s:o, s:I, s:I, s:I}", "file",
                              dra_esc_path_json(what), "valid",
                              nerr == 0, "errors", diags_json(errs), "warnings", diags_json(&warns),
                              "errors_not_listed", (json_int_t)errs->dropped, "slices",
                              (json_int_t)m->nslices, "devices", (json_int_t)m->ndevices);
        if (!o || json_array_append_new(c->files, o) != 0)
            c->t.env = 1; /* out of memory: the JSON would be incomplete */
    } else if (errs->count || (!c->quiet && warns.count)) {
        dra_progress_clear(&c->prog);
        print_list(errs, "error");
        if (!c->quiet)
            print_list(&warns, "warning");
    }
    c->t.files++;
    c->t.invalid += nerr != 0;
    c->t.errors += nerr;
    c->t.warnings += nwarn;
    c->t.slices += m->nslices;
    c->t.devices += m->ndevices;
    c->t.classes += m->nclasses;
    c->t.claims += m->nclaims;
    c->t.templates += m->ntemplates;
    c->t.pods += m->npods;
    c->t.nodes += m->nnodes;
    c->t.skipped += m->nskipped;
    if (rrc == DRA_ENOMEM || vrc == DRA_ENOMEM || (rrc == DRA_EIO && nerr == 1))
        c->t.env = 1;
    dra_diag_list_fini(&warns);
}

/* ---- scenarios and satisfiability -------------------------------------------------------- */

/* Does one device satisfy every program? (An evaluation error counts as no.) */
static bool device_matches(const dra_model_t *m, const dra_device_t *dev,
                           const dra_cel_prog_t *const *progs, uint32_t n, dra_arena_t *scratch)
{
    for (uint32_t i = 0; i < n; i++) {
        bool match = false;
        dra_diag_t d;
        dra_diag_clear(&d);
        if (dra_cel_eval_device(progs[i], m, dev, scratch, &match, &d) != DRA_OK || !match)
            return false;
    }
    return true;
}

/* Check the requests of a claim or template against the cluster of m: the device class exists,
 * every class and request selector compiles, and (when unmatched) some device of the cluster
 * satisfies the class and the request's selectors (a scenario's entries get that from
 * dra_scenario_selfcheck, at the entry's field and with the reason). Errors go to errs as "FILE:LINE:COL: WHAT: request R: reason". */
static void check_satisfiable(const dra_model_t *m, const dra_claim_t *cl, const char *file,
                              const char *what, bool unmatched, dra_diag_list_t *errs)
{
    dra_arena_t arena, scratch;
    dra_arena_init(&arena, 16 * 1024);
    dra_arena_init(&scratch, 16 * 1024);
    for (uint32_t r = 0; r < cl->nrequests; r++) {
        const dra_request_t *rq = &cl->requests[r];
        uint32_t nb = rq->exactly ? 1 : rq->nfirst_available;
        /* firstAvailable: unsatisfiable alternatives are fine while one can be satisfied */
        bool any_found = false;
        const char *nf_file = file, *nf_class = "";
        uint32_t nf_line = 0, nf_col = 0;
        for (uint32_t b = 0; b < nb; b++) {
            const dra_exact_request_t *body = rq->exactly ? rq->exactly : &rq->first_available[b];
            const char *f = body->pos.file && strcmp(body->pos.file, "<gen>") != 0 ? body->pos.file : file;
            uint32_t line = f == file && cl->pos.line == 0 ? 0 : body->pos.line;
            uint32_t col = line ? body->pos.column : 0;
            const dra_device_class_t *dc =
                body->class_name ? dra_model_find_class(m, body->class_name) : NULL;
            if (!dc) {
                dra_diag_list_add(errs, DRA_EVALIDATE, f, line, col,
                                  "%s: request %s: device class %s does not exist in the cluster",
                                  what, body->name ? body->name : "?",
                                  body->class_name ? body->class_name : "(none)");
                continue;
            }
            const dra_cel_prog_t *progs[64];
            uint32_t np = 0;
            bool ok = true;
            for (int pass = 0; pass < 2; pass++) {
                const dra_selector_t *sel = pass ? body->selectors : dc->selectors;
                uint32_t ns = pass ? body->nselectors : dc->nselectors;
                for (uint32_t k = 0; k < ns; k++) {
                    if (!sel[k].cel)
                        continue;
                    dra_cel_prog_t *prog = NULL;
                    dra_diag_t d;
                    dra_diag_clear(&d);
                    if (dra_cel_compile(sel[k].cel, strlen(sel[k].cel), &arena, &prog, &d) != DRA_OK) {
                        dra_diag_list_add(errs, DRA_EVALIDATE, f, line, col,
                                          "%s: request %s: %s selector #%u does not compile: %s",
                                          what, body->name ? body->name : "?",
                                          pass ? "request" : "device class", k, d.msg);
                        ok = false;
                    } else if (np < DRA_ARRAY_LEN(progs)) {
                        progs[np++] = prog;
                    }
                }
            }
            if (!ok)
                continue;
            bool found = false;
            for (uint32_t si = 0; si < m->nslices && !found; si++)
                for (uint32_t di = 0; di < m->slices[si]->ndevices && !found; di++)
                    found = device_matches(m, &m->slices[si]->devices[di], progs, np, &scratch);
            if (found) {
                any_found = true;
            } else if (!unmatched) {
                any_found = true; /* the caller reports unmatched requests its own way */
            } else if (rq->exactly) {
                dra_diag_list_add(errs, DRA_EVALIDATE, f, line, col,
                                  "%s: request %s: no device of the cluster (%u slices) satisfies "
                                  "device class %s%s",
                                  what, body->name ? body->name : "?", m->nslices, dc->name,
                                  body->nselectors ? " and the request's selectors" : "");
            } else if (!*nf_class) {
                nf_file = f;
                nf_line = line;
                nf_col = col;
                nf_class = dc->name;
            }
        }
        if (!rq->exactly && !any_found && *nf_class)
            dra_diag_list_add(errs, DRA_EVALIDATE, nf_file, nf_line, nf_col,
                              "%s: request %s: no alternative of firstAvailable can be satisfied "
                              "by a device of the cluster (%u slices; first: device class %s)",
                              what, rq->name ? rq->name : "?", m->nslices, nf_class);
    }
    dra_arena_fini(&scratch);
    dra_arena_fini(&arena);
}

/* The claims and templates of a cluster (validate --cluster). */
static void check_cluster_claims(const dra_model_t *m, dra_diag_list_t *errs)
{
    char what[300];
    for (uint32_t i = 0; i < m->nclaims; i++) {
        snprintf(what, sizeof what, "ResourceClaim/%s", m->claims[i]->name);
        check_satisfiable(m, m->claims[i], m->claims[i]->pos.file, what, true, errs);
    }
    for (uint32_t i = 0; i < m->ntemplates; i++) {
        snprintf(what, sizeof what, "ResourceClaimTemplate/%s", m->templates[i]->name);
        check_satisfiable(m, m->templates[i], m->templates[i]->pos.file, what, true, errs);
    }
}

/* A drabench scenario (kind: Scenario), not a manifest: its first 4 KiB name the kind. */
/* A scenario rather than manifests: its first 4 KiB name drabench.dev/ and kind Scenario. */
static bool is_scenario(const char *buf, size_t len)
{
    char head[4097];
    size_t n = len < sizeof head - 1 ? len : sizeof head - 1;
    memcpy(head, buf, n);
    head[n] = '\0';
    return strstr(head, "drabench.dev/") && strstr(head, "kind: Scenario");
}

/* Validate a scenario: load it, build its cluster and claim shapes, read its manifests, and check
 * that every mix entry's requests can be satisfied by some device of that cluster. */
static void validate_scenario(vctx_t *c, const char *path, const char *buf, size_t len)
{
    dra_model_t m;
    dra_model_init(&m);
    dra_diag_list_t errs, warns;
    dra_diag_list_init(&errs);
    dra_diag_list_init(&warns);
    dra_scenario_t s;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_scenario_load(&s, buf, len, path, &d);
    bool loaded = rc == DRA_OK;
    dra_scenario_built_t built;
    bool have_built = false;
    if (rc == DRA_OK) {
        rc = dra_scenario_build(&s, &m, s.seed, &built, &d);
        have_built = rc == DRA_OK;
    }
    if (rc != DRA_OK) {
        if (!d.file)
            d.file = path;
        dra_diag_list_push(&errs, &d);
    }
    if (rc == DRA_OK && s.nmanifests)
        rc = dra_scenario_read_manifests(&s, &m, &errs);
    if (rc == DRA_OK && dra_model_imply_nodes(&m) == DRA_OK) {
        char what[300];
        for (uint32_t i = 0; i < s.nmix; i++) {
            snprintf(what, sizeof what, "spec.workload.mix[%u] (%s)", i,
                     built.templates[i] && built.templates[i]->name ? built.templates[i]->name : "?");
            if (built.templates[i])
                check_satisfiable(&m, built.templates[i], path, what, false, &errs);
        }
        /* the scenario against its own cluster: names, counts, gates, workload (scencheck.h) */
        if (dra_scenario_selfcheck(&s, &m, &built, &errs, &warns) == DRA_ENOMEM)
            rc = DRA_ENOMEM;
    }
    /* the generated objects are the generator's: validate the unit for the counts and the
       errors above only */
    size_t nerr = errs.count + errs.dropped;
    if (c->json) {
        json_t *o = json_pack("{s:o, s:b, s:o, s:o, s:I, s:I}", "file", dra_esc_path_json(path),
                              "valid", nerr == 0, "errors", diags_json(&errs), "warnings",
                              diags_json(&warns), "slices", (json_int_t)m.nslices, "devices",
                              (json_int_t)m.ndevices);
        if (o)
            json_array_append_new(c->files, o);
    } else if (errs.count || (!c->quiet && warns.count)) {
        dra_progress_clear(&c->prog);
        print_list(&errs, "error");
        if (!c->quiet)
            print_list(&warns, "warning");
    }
    c->t.warnings += warns.count + warns.dropped;
    c->t.files++;
    c->t.invalid += nerr != 0;
    c->t.errors += nerr;
    c->t.slices += m.nslices;
    c->t.devices += m.ndevices;
    c->t.classes += m.nclasses;
    c->t.nodes += m.nnodes;
    if (rc == DRA_ENOMEM)
        c->t.env = 1;
    if (have_built)
        dra_scenario_built_fini(&built);
    if (loaded)
        dra_scenario_fini(&s);
    dra_diag_list_fini(&warns);
    dra_diag_list_fini(&errs);
    dra_model_fini(&m);
}

static int validate_file(const char *path, void *ud)
{
    vctx_t *c = ud;
    /* read once: a FIFO or a pipe (/dev/stdin) cannot be read a second time, so the look at the
     * head (a scenario?) and the parse work on the same bytes */
    char *buf = NULL;
    size_t len = 0;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rrc = dra_io_read_file(path, DRA_MANIFEST_MAX_FILE, &buf, &len, &d);
    if (rrc == DRA_OK && is_scenario(buf, len)) {
        validate_scenario(c, path, buf, len);
        free(buf);
        dra_progress_update(&c->prog, "validate: files", c->t.files, c->nfiles, false);
        return DRA_OK;
    }
    dra_model_t m;
    dra_model_init(&m);
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    if (rrc != DRA_OK)
        (void)dra_diag_list_add(&errs, rrc, path, 0, 0, "%s", d.msg[0] ? d.msg : dra_strerror(rrc));
    else
        rrc = dra_manifest_read_buffer(&m, path, buf, len, &errs);
    free(buf);
    int irc = dra_model_imply_nodes(&m);
    if (rrc == DRA_OK)
        rrc = irc;
    validate_unit(c, path, &m, rrc, &errs);
    dra_progress_update(&c->prog, "validate: files", c->t.files, c->nfiles, false);
    dra_diag_list_fini(&errs);
    dra_model_fini(&m);
    return DRA_OK;
}

static int count_file(const char *path, void *ud)
{
    (void)path;
    ++*(size_t *)ud;
    return DRA_OK;
}

int dra_cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {{"cluster", no_argument, NULL, 'c'},
                                         {"release", required_argument, NULL, 'r'},
                                         {"strict", no_argument, NULL, 's'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"progress", required_argument, NULL, 'P'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    dra_validate_opts_t vo = {0, 0};
    dra_progress_when_t when = DRA_PROGRESS_AUTO;
    int quiet = 0, cluster = 0, json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "cr:so:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            cluster = 1;
            break;
        case 'P':
            if (!dra_progress_parse_when(optarg, &when))
                return dra_cli_usage_error("validate",
                                           "--progress must be auto, always or never, not '%s'",
                                           optarg);
            break;
        case 'o':
            if (strcmp(optarg, "json") == 0)
                json = 1;
            else if (strcmp(optarg, "text") != 0)
                return dra_cli_usage_error("validate", "-o must be text or json, not '%s'", optarg);
            break;
        case 'r': {
            dra_release_t rel;
            dra_diag_t rd;
            if (dra_alloc_release_parse(optarg, &rel, &rd))
                return dra_cli_usage_error("validate", "--release: %s", rd.msg);
            vo.release = (int)rel;
            break;
        }
        case 's':
            vo.flags |= DRA_VALIDATE_STRICT;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'h':
            fputs(help, stdout);
            return DRA_EXIT_OK;
        default:
            return dra_cli_usage_error("validate", "unknown option");
        }
    }
    if (optind >= argc)
        return dra_cli_usage_error("validate", "no FILE or DIR given");
    vctx_t vc = {.vo = &vo, .quiet = quiet, .json = json};
    if (json && !(vc.files = json_array()))
        return DRA_EXIT_ENV;
    char *const *paths = argv + optind;
    int npaths = argc - optind;
    if (cluster) {
        dra_model_t m;
        dra_model_init(&m);
        dra_diag_list_t errs;
        dra_diag_list_init(&errs);
        int rrc = dra_manifest_read_paths(&m, paths, npaths, &errs);
        if (rrc == DRA_OK && errs.count == 0)
            check_cluster_claims(&m, &errs);
        validate_unit(&vc, "(cluster)", &m, rrc, &errs);
        vc.t.files = 0;
        /* counting only: the read above reported the walk's errors */
        dra_walk_t cw;
        dra_walk_init(&cw, dra_walk_manifest_suffixes);
        if (dra_walk_paths(&cw, paths, npaths, count_file, &vc.t.files, NULL) == DRA_ENOMEM)
            vc.t.files = 0; /* the count is only shown; a partial count is not */
        dra_walk_fini(&cw);
        dra_diag_list_fini(&errs);
        dra_model_fini(&m);
    } else {
        dra_progress_mode_t pm = dra_progress_mode(when, quiet || json);
        dra_progress_init(&vc.prog, pm == DRA_PROGRESS_BAR ? pm : DRA_PROGRESS_NONE, stderr);
        dra_walk_t w; /* owns the paths the walk errors name, until after they are reported */
        dra_walk_init(&w, dra_walk_manifest_suffixes);
        if (pm == DRA_PROGRESS_BAR && /* counting only: the walk below reports its errors */
            dra_walk_paths(&w, paths, npaths, count_file, &vc.nfiles, NULL) != DRA_OK)
            vc.nfiles = 0; /* no total: the bar shows a count without one */
        dra_diag_list_t werrs; /* a directory that cannot be walked, a loop, too deep */
        dra_diag_list_init(&werrs);
        int wrc = dra_walk_paths(&w, paths, npaths, validate_file, &vc, &werrs);
        if (werrs.count) {
            dra_model_t empty;
            dra_model_init(&empty);
            validate_unit(&vc, "(paths)", &empty, wrc, &werrs);
            dra_model_fini(&empty);
            for (size_t i = 0; i < werrs.count; i++)
                if (werrs.items[i].code == DRA_EIO)
                    vc.t.env = 1; /* unreadable: environment; a loop or depth: invalid input */
        }
        dra_diag_list_fini(&werrs);
        dra_walk_fini(&w);
        dra_progress_update(&vc.prog, "validate: files", vc.t.files, vc.nfiles, true);
        dra_progress_finish(&vc.prog);
    }
    const vtotals_t *t = &vc.t;
    if (json) {
        json_t *root = json_pack(
            "{s:o, s:{s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}}", "files",
            vc.files, "summary", "cluster", cluster, "files", (json_int_t)t->files, "invalid_files",
            (json_int_t)t->invalid, "errors", (json_int_t)t->errors, "warnings",
            (json_int_t)t->warnings, "slices", (json_int_t)t->slices, "devices",
            (json_int_t)t->devices, "classes", (json_int_t)t->classes, "claims",
            (json_int_t)t->claims, "templates", (json_int_t)t->templates, "pods",
            (json_int_t)t->pods, "nodes", (json_int_t)t->nodes, "documents_skipped",
            (json_int_t)t->skipped);
        if (!root || json_dumpf(root, stdout, JSON_INDENT(2)) != 0 || fputc('\n', stdout) == EOF)
            vc.t.env = 1;
        json_decref(root);
    } else if (!quiet) {
        char files[96] = "";
        if (!cluster)
            snprintf(files, sizeof files, "%zu file%s (%zu invalid), ", t->files,
                     t->files == 1 ? "" : "s", t->invalid);
        fprintf(stderr,
                "validate: %s%llu slices (%llu devices), %llu classes, %llu claims, %llu "
                "templates, %llu pods and workloads, %llu nodes, %llu documents skipped: %zu "
                "error%s, %zu warning%s\n",
                files, t->slices, t->devices, t->classes, t->claims, t->templates, t->pods,
                t->nodes, t->skipped, t->errors, t->errors == 1 ? "" : "s", t->warnings,
                t->warnings == 1 ? "" : "s");
    }
    if (vc.t.env)
        return DRA_EXIT_ENV;
    return t->errors ? DRA_EXIT_USAGE : DRA_EXIT_OK;
}
