/*
 * conformance.c - the AllocationTest case runner (conformance.h): the strict case schema, the
 * case's steps from loading to the expectations, and the differential pair of
 * `alloc --allocator both`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "alloc/explain.h"
#include "alloc/invariants.h"
#include "conformance.h"
#include "walk.h"
#include "conformance_tests.h"
#include "escape.h"
#include "exitcode.h"
#include "files.h"
#include "engine/engine.h"
#include "extres/extres.h"
#include "groups.h"
#include "table/table.h"
#include "ydoc.h"

void (*dra_conf_test_perturb)(uint64_t decision, dra_alloc_outcome_t *fast) = NULL;

static const char *nz(const char *s)
{
    return s ? s : "";
}

uint64_t dra_conf_budget(const dra_conf_opts_t *o, dra_alloc_kind_t kind)
{
    if (o->max_steps_set)
        return o->max_steps;
    return kind == DRA_ALLOC_FAST ? 0 : DRA_CONF_DEFAULT_MAX_STEPS;
}

int dra_conf_read_manifest(dra_model_t *m, dra_taint_rules_t *rules, const char *path,
                           dra_diag_list_t *errs)
{
    char *buf = NULL;
    size_t len = 0;
    dra_diag_t d;
    dra_diag_clear(&d);
    d.file = path;
    if (dra_io_read_file(path, DRA_MANIFEST_MAX_FILE, &buf, &len, &d) != DRA_OK) {
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

typedef struct readp {
    dra_model_t *m;
    dra_taint_rules_t *rules;
    dra_diag_list_t *errs;
    int rc;
} readp_t;

static int read_one(const char *path, void *ud)
{
    readp_t *r = ud;
    const char *own = dra_model_str(r->m, path); /* diagnostics outlive the walker */
    if (!own)
        return DRA_ENOMEM;
    int rc = dra_conf_read_manifest(r->m, r->rules, own, r->errs);
    if (rc && !r->rc)
        r->rc = rc;
    return rc == DRA_ENOMEM ? rc : DRA_OK;
}

int dra_conf_read_paths(dra_model_t *m, dra_taint_rules_t *rules, char *const *paths, int n,
                        dra_diag_list_t *errs)
{
    dra_walk_t w;
    dra_walk_init(&w, dra_walk_manifest_suffixes);
    readp_t r = {m, rules, errs, DRA_OK};
    size_t before = errs->count;
    int rc = dra_walk_paths(&w, paths, n, read_one, &r, errs);
    /* the walker's own diagnostics name its strings: copy them into the model */
    for (size_t i = before; i < errs->count; i++)
        if (errs->items[i].file)
            errs->items[i].file = dra_model_str(m, errs->items[i].file);
    dra_walk_fini(&w);
    if (rc == DRA_OK)
        rc = r.rc;
    if (rc == DRA_OK)
        rc = dra_model_imply_nodes(m);
    return rc;
}

int dra_conf_pod_claims(dra_model_t *m, const dra_pod_t *pod, const char *podname,
                        dra_claim_t **todo, uint32_t *ntodo, dra_claim_t **done, uint32_t *ndone,
                        uint32_t max, dra_diag_t *diag)
{
    *ntodo = *ndone = 0;
    for (uint32_t k = 0; k < pod->nclaims; k++) {
        const dra_pod_claim_t *pc = &pod->claims[k];
        dra_claim_t *c = NULL;
        if (pc->claim_name) {
            c = dra_model_find_claim(m, pod->namespace_, pc->claim_name);
        } else if (pc->generated_name &&
                   (c = dra_model_find_claim(m, pod->namespace_, pc->generated_name))) {
            /* the claim the control plane made from the template (status.resourceClaimStatuses) */
        } else if (pc->template_name) {
            char nm[600];
            snprintf(nm, sizeof nm, "%s-%s", podname, nz(pc->name));
            /* generated for this pod already (an earlier run's output): the same claim */
            c = dra_model_find_claim(m, pod->namespace_, nm);
            const dra_claim_t *t =
                c ? NULL : dra_model_find_template(m, pod->namespace_, pc->template_name);
            if (t && !(c = dra_model_instantiate(m, t, pod->namespace_, nm)))
                return dra_diag_set(diag, DRA_ENOMEM, NULL, 0, 0, "out of memory");
        }
        if (!c)
            return dra_diag_set(diag, DRA_ENOTFOUND, NULL, 0, 0, "claim %s (%s %s) not found",
                                nz(pc->name), pc->claim_name ? "ResourceClaim" : "template",
                                pc->claim_name ? pc->claim_name : nz(pc->template_name));
        if (c->allocation ? *ndone >= max : *ntodo >= max)
            return dra_diag_set(diag, DRA_ELIMIT, NULL, 0, 0, "more than %u claims", max);
        if (c->allocation)
            done[(*ndone)++] = c;
        else
            todo[(*ntodo)++] = c;
    }
    return DRA_OK;
}

int dra_conf_available_on(dra_claim_t *const *done, uint32_t n, const dra_node_t *node,
                          const dra_alloc_features_t *f, bool *ok, bool *ops, uint32_t *which,
                          char *err, size_t errlen)
{
    *ok = true;
    *ops = false;
    bool need_decl = f && dra_alloc_gate_on(f, DRA_GATE_OPTIONAL_NODE_OPERATIONS) &&
                     !dra_alloc_node_declares(node, "DRAOptionalNodeOperations");
    for (uint32_t i = 0; i < n; i++) {
        int rc = dra_alloc_available_on(done[i]->allocation, node, ok, err, errlen);
        const dra_allocation_t *a = done[i]->allocation;
        for (uint32_t r = 0; rc == DRA_OK && *ok && need_decl && a && r < a->nresults; r++)
            if (a->results[r].nskip_node_ops)
                *ok = false, *ops = true;
        if (rc != DRA_OK || !*ok) {
            *which = i;
            return rc;
        }
    }
    return DRA_OK;
}

/* ---- case checks ---------------------------------------------------------------------------- */

typedef struct tcase {
    const dra_ynode_t *doc; /* the AllocationTest (or GroupTest) document */
    int ndocs, ngroup;
    const dra_ynode_t *gdoc;
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
    if (k && dra_ynode_is_scalar(k) && strcmp(k->text, "GroupTest") == 0) {
        t->gdoc = root;
        t->ngroup++;
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

static void check_snapshot(const dra_ynode_t *y, const dra_allocation_t *al, uint32_t i,
                           const char *key, fail_t *f);

static void check_results(const dra_ynode_t *exp, const dra_allocation_t *al, const char *key,
                          fail_t *f)
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
                failf(f, "claim %s result #%u: %s %s, expected %s", key, i, keys[k], nz(vals[k]),
                      want);
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
        /* skipNodeOperations: absent means none (a copied list must be expected) */
        const dra_ynode_t *sno = dra_ynode_get(e, "skipNodeOperations");
        if (sno ? !seq_strs_equal(sno, r->skip_node_ops, r->nskip_node_ops)
                : r->nskip_node_ops != 0)
            failf(f, "claim %s result #%u: skipNodeOperations differ (%u, expected %u)", key, i,
                  r->nskip_node_ops, sno && dra_ynode_is_seq(sno) ? sno->n : 0);
        const dra_ynode_t *bfc = dra_ynode_get(e, "bindingFailureConditions");
        if (bfc &&
            !seq_strs_equal(bfc, r->binding_failure_conditions, r->nbinding_failure_conditions))
            failf(f, "claim %s result #%u: bindingFailureConditions differ", key, i);
        const dra_ynode_t *tl = dra_ynode_get(e, "tolerations");
        if (tl) {
            uint32_t n = dra_ynode_is_seq(tl) ? tl->n : 0;
            if (n != r->ntolerations)
                failf(f, "claim %s result #%u: %u tolerations, expected %u", key, i,
                      r->ntolerations, n);
            for (uint32_t t = 0; t < n && t < r->ntolerations; t++) {
                const char *k2 = scal(dra_ynode_get(tl->vals[t], "key"));
                if (strcmp(nz(k2), nz(r->tolerations[t].key)) != 0)
                    failf(f, "claim %s result #%u: toleration #%u key %s, expected %s", key, i, t,
                          nz(r->tolerations[t].key), nz(k2));
            }
        }
        const dra_ynode_t *ccs = dra_ynode_get(e, "consumedCounters");
        if (ccs)
            check_snapshot(ccs, al, i, key, f);
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
                    failf(f, "claim %s result #%u: consumedCapacity %s missing", key, i,
                          cc->keys[k]->text);
            }
        }
    }
}

/* consumedCounters.perDevice or .perAllocation of a result against its expectation, a map of
 * counter sets to maps of counters to quantities (absent: no counter set). */
static void check_set_uses(const dra_ynode_t *y, const dra_counter_set_use_t *u, uint32_t n,
                           const char *what, const char *key, uint32_t i, fail_t *f)
{
    uint32_t ny = y && dra_ynode_is_map(y) ? y->n : 0;
    if (ny != n) {
        failf(f, "claim %s result #%u: consumedCounters.%s has %u counter sets, expected %u", key,
              i, what, n, ny);
        return;
    }
    for (uint32_t k = 0; k < ny; k++) {
        const dra_counter_set_use_t *hit = NULL;
        for (uint32_t z = 0; z < n && !hit; z++)
            if (strcmp(nz(u[z].counter_set), y->keys[k]->text) == 0)
                hit = &u[z];
        const dra_ynode_t *cs = y->vals[k];
        uint32_t nc = cs && dra_ynode_is_map(cs) ? cs->n : 0;
        if (!hit || hit->ncounters != nc) {
            failf(f, "claim %s result #%u: consumedCounters.%s.%s differs (%u counters, expected "
                  "%u)", key, i, what, y->keys[k]->text, hit ? hit->ncounters : 0, nc);
            return;
        }
        for (uint32_t c = 0; c < nc; c++) {
            const dra_consumed_t *v = NULL;
            for (uint32_t z = 0; z < hit->ncounters && !v; z++)
                if (strcmp(nz(hit->counters[z].name), cs->keys[c]->text) == 0)
                    v = &hit->counters[z];
            if (!v || !qty_equal(cs->vals[c], &v->value)) {
                char b2[64] = "missing";
                if (v)
                    dra_quantity_format(&v->value, b2, sizeof b2);
                failf(f, "claim %s result #%u: consumedCounters.%s.%s.%s = %s, expected %s", key,
                      i, what, y->keys[k]->text, cs->keys[c]->text, b2, nz(scal(cs->vals[c])));
            }
        }
    }
}

/* consumedCounters (KEP-5941): "none" expects no snapshot, a map {perDevice, perAllocation}
 * the snapshot's counters exactly ({} is the empty snapshot). */
static void check_snapshot(const dra_ynode_t *y, const dra_allocation_t *al, uint32_t i,
                           const char *key, fail_t *f)
{
    const dra_counter_snapshot_t *s = al->counters ? al->counters[i] : NULL;
    if (scal(y)) {
        if (strcmp(scal(y), "none") != 0)
            failf(f, "claim %s result #%u: consumedCounters: expected none or a map", key, i);
        else if (s)
            failf(f, "claim %s result #%u: consumedCounters present, expected none", key, i);
        return;
    }
    if (!s) {
        failf(f, "claim %s result #%u: consumedCounters missing", key, i);
        return;
    }
    check_set_uses(dra_ynode_get(y, "perDevice"), s->per_device, s->nper_device, "perDevice", key,
                   i, f);
    check_set_uses(dra_ynode_get(y, "perAllocation"), s->per_allocation, s->nper_allocation,
                   "perAllocation", key, i, f);
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

static void check_config(const dra_ynode_t *exp, const dra_allocation_t *al, const char *key,
                         fail_t *f)
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
            failf(f, "claim %s config #%u: driver %s, expected %s", key, i, nz(c->opaque.driver),
                  drv);
    }
}

/* ---- the AllocationTest schema (strict: an unknown key or a wrong shape makes the case
 * invalid, so that a misspelt expectation cannot pass unchecked) ------------------------------ */

typedef enum skind {
    SK_ANY,           /* anything (annotations, labels, opaque parameters) */
    SK_SCALAR,        /* a scalar */
    SK_MAP,           /* a mapping with the listed keys only */
    SK_MAPOF,         /* a mapping with any keys, every value of `item` */
    SK_SEQ,           /* a sequence, every item of `item` */
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
static const skey_t k_meta[] = {{"name", &s_scalar},
                                {"namespace", &s_scalar},
                                {"annotations", &s_map_any},
                                {"labels", &s_map_any},
                                {NULL, NULL}};
static const sdef_t s_meta = {SK_MAP, k_meta, NULL};
static const skey_t k_claim[] = {
    {"name", &s_scalar}, {"template", &s_scalar}, {"pod", &s_scalar}, {NULL, NULL}};
static const sdef_t s_claim = {SK_SCALAR_OR_MAP, k_claim, NULL};
static const sdef_t s_claims = {SK_SEQ, NULL, &s_claim};
static const skey_t k_toleration[] = {
    {"key", &s_scalar},    {"operator", &s_scalar},          {"value", &s_scalar},
    {"effect", &s_scalar}, {"tolerationSeconds", &s_scalar}, {NULL, NULL}};
static const sdef_t s_toleration = {SK_MAP, k_toleration, NULL};
static const sdef_t s_tolerations = {SK_SEQ, NULL, &s_toleration};
static const sdef_t s_set_uses = {SK_MAPOF, NULL, &s_map_scalars};
static const skey_t k_snapshot[] = {
    {"perDevice", &s_set_uses}, {"perAllocation", &s_set_uses}, {NULL, NULL}};
static const sdef_t s_snapshot = {SK_SCALAR_OR_MAP, k_snapshot, NULL};
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
                                  {"consumedCounters", &s_snapshot},
                                  {"skipNodeOperations", &s_scalars},
                                  {NULL, NULL}};
static const sdef_t s_result = {SK_MAP, k_result, NULL};
static const sdef_t s_results = {SK_SEQ, NULL, &s_result};
static const sdef_t s_allocations = {SK_MAPOF, NULL, &s_results};
static const skey_t k_nsreq[] = {
    {"key", &s_scalar}, {"operator", &s_scalar}, {"values", &s_scalars}, {NULL, NULL}};
static const sdef_t s_nsreq = {SK_MAP, k_nsreq, NULL};
static const sdef_t s_nsreqs = {SK_SEQ, NULL, &s_nsreq};
static const skey_t k_nsterm[] = {
    {"matchExpressions", &s_nsreqs}, {"matchFields", &s_nsreqs}, {NULL, NULL}};
static const sdef_t s_nsterm = {SK_MAP, k_nsterm, NULL};
static const sdef_t s_nsterms = {SK_SEQ, NULL, &s_nsterm};
static const skey_t k_nodesel[] = {{"nodeSelectorTerms", &s_nsterms}, {NULL, NULL}};
static const sdef_t s_nodesel = {SK_MAP, k_nodesel, NULL};
static const skey_t k_opaque[] = {{"driver", &s_scalar}, {"parameters", &s_any}, {NULL, NULL}};
static const sdef_t s_opaque = {SK_MAP, k_opaque, NULL};
static const skey_t k_config[] = {
    {"source", &s_scalar}, {"requests", &s_scalars}, {"opaque", &s_opaque}, {NULL, NULL}};
static const sdef_t s_config_entry = {SK_MAP, k_config, NULL};
static const sdef_t s_config_list = {SK_SEQ, NULL, &s_config_entry};
static const sdef_t s_config = {SK_MAPOF, NULL, &s_config_list};
static const skey_t k_stats[] = {{"allocateOneInvocations", &s_scalar}, {NULL, NULL}};
static const sdef_t s_stats = {SK_MAP, k_stats, NULL};
static const skey_t k_xreq[] = {
    {"name", &s_scalar}, {"deviceClassName", &s_scalar}, {"count", &s_scalar}, {NULL, NULL}};
static const sdef_t s_xreq = {SK_MAP, k_xreq, NULL};
static const sdef_t s_xreqs = {SK_SEQ, NULL, &s_xreq};
static const skey_t k_xmap[] = {{"containerName", &s_scalar},
                                {"resourceName", &s_scalar},
                                {"requestName", &s_scalar},
                                {NULL, NULL}};
static const sdef_t s_xmap = {SK_MAP, k_xmap, NULL};
static const sdef_t s_xmaps = {SK_SEQ, NULL, &s_xmap};
static const skey_t k_xclaim[] = {
    {"requests", &s_xreqs}, {"requestMappings", &s_xmaps}, {NULL, NULL}};
static const sdef_t s_xclaim = {SK_SCALAR_OR_MAP, k_xclaim, NULL};
static const skey_t k_expect[] = {{"outcome", &s_scalar},
                                  {"errorContains", &s_scalar},
                                  {"allocations", &s_allocations},
                                  {"nodeSelector", &s_nodesel},
                                  {"config", &s_config},
                                  {"stats", &s_stats},
                                  {"invariantViolations", &s_scalar},
                                  {"extendedResourceClaim", &s_xclaim},
                                  {NULL, NULL}};
static const sdef_t s_expect = {SK_MAP, k_expect, NULL};
static const skey_t k_alloc[] = {{"name", &s_scalar}, {"node", &s_scalar}, {NULL, NULL}};
static const sdef_t s_alloc = {SK_SCALAR_OR_MAP, k_alloc, NULL};
static const sdef_t s_allocs = {SK_SEQ, NULL, &s_alloc};
static const skey_t k_pod[] = {{"name", &s_scalar}, {"replica", &s_scalar}, {NULL, NULL}};
static const sdef_t s_pod = {SK_SCALAR_OR_MAP, k_pod, NULL};
static const skey_t k_spec[] = {{"release", &s_scalar},  {"features", &s_map_scalars},
                                {"include", &s_scalars}, {"node", &s_scalar},
                                {"claims", &s_claims},   {"allocated", &s_allocs},
                                {"pod", &s_pod},         {"expect", &s_expect},
                                {"upstreamBugs", &s_scalar}, {"maxSteps", &s_scalar},
                                {NULL, NULL}};
static const sdef_t s_spec = {SK_MAP, k_spec, NULL};
static const skey_t k_test[] = {{"apiVersion", &s_scalar},
                                {"kind", &s_scalar},
                                {"metadata", &s_meta},
                                {"spec", &s_spec},
                                {NULL, NULL}};
static const sdef_t s_test = {SK_MAP, k_test, NULL};

/* GroupTest: the pods of the objects scheduled as `drabench alloc -f` schedules them (PodGroups
 * as groups), then per pod, group and claim what must come out. */
static const skey_t k_gpod[] = {{"node", &s_scalar}, {"placed", &s_scalar}, {"waits", &s_scalar},
                                {NULL, NULL}};
static const sdef_t s_gpod = {SK_MAP, k_gpod, NULL};
static const sdef_t s_gpods = {SK_MAPOF, NULL, &s_gpod};
static const skey_t k_ggroup[] = {{"outcome", &s_scalar},        {"placed", &s_scalar},
                                  {"domain", &s_scalar},         {"short", &s_scalar},
                                  {"reasonContains", &s_scalar}, {NULL, NULL}};
static const sdef_t s_ggroup = {SK_MAP, k_ggroup, NULL};
static const sdef_t s_ggroups = {SK_MAPOF, NULL, &s_ggroup};
static const skey_t k_gexpect[] = {{"pods", &s_gpods},
                                   {"groups", &s_ggroups},
                                   {"claims", &s_allocations},
                                   {"notesContain", &s_scalars},
                                   {NULL, NULL}};
static const sdef_t s_gexpect = {SK_MAP, k_gexpect, NULL};
static const skey_t k_gspec[] = {{"release", &s_scalar}, {"features", &s_map_scalars},
                                 {"include", &s_scalars}, {"policy", &s_scalar},
                                 {"expect", &s_gexpect}, {NULL, NULL}};
static const sdef_t s_gspec = {SK_MAP, k_gspec, NULL};
static const skey_t k_gtest[] = {{"apiVersion", &s_scalar},
                                 {"kind", &s_scalar},
                                 {"metadata", &s_meta},
                                 {"spec", &s_gspec},
                                 {NULL, NULL}};
static const sdef_t s_gtest = {SK_MAP, k_gtest, NULL};

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

static const char *const outcomes[] = {"Allocated", "Unsatisfiable", "NodeFailure",
                                       "Fatal",     "Invalid",       NULL};

/* The AllocationTest (group: GroupTest) document doc of file: the schema, then what the schema
 * cannot say (spec and spec.expect are required; an AllocationTest's expect.outcome is one of
 * the five). */
static int check_test_doc(const dra_ynode_t *doc, const char *file, bool group, dra_diag_t *d)
{
    char at[1024] = "";
    int rc = schema_check(doc, group ? &s_gtest : &s_test, file, at, sizeof at, d);
    if (rc)
        return rc;
    const dra_ynode_t *spec = dra_ynode_get(doc, "spec");
    if (!spec || !dra_ynode_is_map(spec))
        return dra_diag_set(d, DRA_EVALIDATE, file, doc->line, doc->column, "%s has no spec",
                            group ? "GroupTest" : "AllocationTest");
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
    if (group)
        return DRA_OK;
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

/* ---- one case, step by step ------------------------------------------------------------------ */

/* What a step tells the case: go on, end (the result as set, the line printed or none), or end
 * with the PASS/FAIL line of the expectations checked so far. */
typedef enum step { STEP_NEXT, STEP_DONE, STEP_REPORT } step_t;

typedef struct kase {
    const char *path, *name; /* name: metadata.name, else the path */
    const dra_conf_opts_t *o;
    FILE *out;
    int result; /* DRA_CONF_* */
    char *buf;  /* the file's bytes */
    size_t len;
    dra_model_t m;
    dra_arena_t ya, out_arena; /* the YAML tree; the allocations */
    dra_diag_list_t errs;
    tcase_t tc;
    dra_taint_rules_t rules;
    dra_cel_cache_t *cel;
    dra_alloc_state_t *st;
    dra_anyalloc_t al;
    fail_t f;
    char dbuf[700];
    char have_msg[DRA_DIAG_MSG_MAX + 32]; /* the verbose PASS line's outcome */
    const dra_ynode_t *spec, *exp;
    const char *want, *ec; /* expect.outcome, expect.errorContains */
    dra_alloc_features_t feat;
    dra_node_t tmpnode;
    const dra_node_t *node;
    dra_claim_t **claims;
    const char **keys; /* spec.claims' names, per claim */
    uint32_t nc;
    dra_claim_t *done[64]; /* spec.pod: its claims allocated already (they constrain the node) */
    uint32_t nd;
    uint64_t digest0; /* the state's digest before the allocate call */
    dra_alloc_options_t ao;
    bool spec_budget; /* spec.maxSteps given */
    dra_alloc_outcome_t res;
    double alloc_ms;
    /* a spec.claims entry {pod: ns/name}: the claim the scheduler builds for the pod's
     * extended resources on the case's node (core/extres) */
    dra_extres_map_t xmap;
    const dra_pod_t *xpod;
    dra_pod_req_t xreq;
    dra_extres_fit_t xfit;
    uint32_t xidx; /* the special claim's index in claims (UINT32_MAX: none) */
    bool xunfit;   /* NodeResourcesFit or a node filter rejects the node: Unsatisfiable */
    char xwhy[DRA_WHY_TEXT_MAX];
    bool group; /* a GroupTest */
    char why_msg[DRA_WHY_TEXT_MAX]; /* --explain -v: the reason on the case's node */
} kase_t;

/* One PASS / FAIL line of a case: names and messages come from the case file, so the line goes
 * through the terminal layer (control and bidi characters, a newline included, as \xNN): one
 * case, one line, whatever the file holds. */
DRA_PRINTF(2, 3) static void case_line(const kase_t *k, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    dra_esc_term(k->out, line);
    fputc('\n', k->out);
}

/* Print the case's FAIL line with the diag's message. */
static step_t case_fail_msg(kase_t *k, const char *msg)
{
    case_line(k, "FAIL %s (%s): %s", k->name, k->path, msg);
    return STEP_DONE;
}

/* 1. load: parse, the one AllocationTest document, the strict schema. */
static step_t step_load(kase_t *k)
{
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_ydoc_parse_file_buf(k->buf, k->len, k->path, &k->ya, 0, on_doc, &k->tc, &k->errs);
    if (rc || k->tc.ndocs + k->tc.ngroup != 1) {
        case_line(k, "FAIL %s: %s", k->path,
                rc ? (k->errs.count ? dra_diag_format(&k->errs.items[0], k->dbuf, sizeof k->dbuf)
                                    : "parse error")
                   : "expected exactly one AllocationTest or GroupTest document");
        return STEP_DONE;
    }
    k->group = k->tc.ngroup == 1;
    if (k->group)
        k->tc.doc = k->tc.gdoc;
    const dra_ynode_t *meta = dra_ynode_get(k->tc.doc, "metadata");
    k->spec = dra_ynode_get(k->tc.doc, "spec");
    if (scal(dra_ynode_get(meta, "name")))
        k->name = scal(dra_ynode_get(meta, "name"));
    if (check_test_doc(k->tc.doc, k->path, k->group, &d) != DRA_OK) {
        case_line(k, "FAIL %s (%s): invalid case: %s", k->name, k->path,
                dra_diag_format(&d, k->dbuf, sizeof k->dbuf));
        return STEP_DONE;
    }
    k->exp = dra_ynode_get(k->spec, "expect");
    k->want = scal(dra_ynode_get(k->exp, "outcome"));
    k->ec = scal(dra_ynode_get(k->exp, "errorContains"));
    return STEP_NEXT;
}

/* 2. objects: the file's and spec.include's; expect.outcome Invalid (a drabench extension)
 * passes when loading rejects them with expect.errorContains. */
static step_t step_objects(kase_t *k)
{
    bool want_invalid = k->want && strcmp(k->want, "Invalid") == 0;
    int rc = dra_manifest_read_buffer(&k->m, k->path, k->buf, k->len, &k->errs);
    if (rc != DRA_ENOMEM) {
        int r2 = dra_taint_rules_read_buffer(&k->rules, &k->m, k->path, k->buf, k->len, &k->errs);
        rc = rc ? rc : r2;
    }
    const dra_ynode_t *inc = dra_ynode_get(k->spec, "include");
    for (uint32_t i = 0; !rc && inc && dra_ynode_is_seq(inc) && i < inc->n; i++)
        if (scal(inc->vals[i]))
            rc = dra_conf_read_manifest(&k->m, &k->rules, scal(inc->vals[i]), &k->errs);
    if (rc) {
        if (rc == DRA_ENOMEM)
            return STEP_DONE;
        const char *first = k->errs.count
                                ? dra_diag_format(&k->errs.items[0], k->dbuf, sizeof k->dbuf)
                                : dra_strerror(rc);
        if (!want_invalid) {
            case_line(k, "FAIL %s (%s): invalid objects: %s", k->name, k->path, first);
            return STEP_DONE;
        }
        k->result = DRA_CONF_FAIL;
        /* the case passes when loading or validation rejects the objects with the message */
        bool found = !k->ec;
        for (size_t i = 0; i < k->errs.count && !found; i++)
            found = strstr(k->errs.items[i].msg, k->ec) != NULL;
        if (!found)
            failf(&k->f, "objects rejected, but no error contains \"%s\": %s", nz(k->ec), first);
        snprintf(k->have_msg, sizeof k->have_msg, "Invalid: %s", first);
        return STEP_REPORT;
    }
    if (want_invalid) {
        k->result = DRA_CONF_FAIL;
        failf(&k->f, "objects loaded without error, expected Invalid%s%s", k->ec ? " with " : "",
              nz(k->ec));
        return STEP_REPORT;
    }
    return dra_model_imply_nodes(&k->m) ? STEP_DONE : STEP_NEXT;
}

/* 3. features: spec.release (keeping the caller's upstream-bugs choice), spec.upstreamBugs,
 * spec.features; then the DeviceTaintRules, patched into the devices as the scheduler's slice
 * tracker does when their gate is on. */
static step_t step_features(kase_t *k)
{
    dra_diag_t d;
    dra_diag_clear(&d);
    k->feat = k->o->f;
    const char *rel = scal(dra_ynode_get(k->spec, "release"));
    if (rel) {
        dra_release_t r;
        if (dra_alloc_release_parse(rel, &r, &d))
            return case_fail_msg(k, d.msg);
        bool bugs = k->feat.upstream_bugs;
        dra_alloc_features_init(&k->feat, r);
        k->feat.upstream_bugs = bugs;
    }
    const dra_ynode_t *ub = dra_ynode_get(k->spec, "upstreamBugs"); /* drabench extension */
    if (ub && dra_ynode_bool(ub, k->path, "spec.upstreamBugs", &k->feat.upstream_bugs, &d))
        return case_fail_msg(k, d.msg);
    const dra_ynode_t *fs = dra_ynode_get(k->spec, "features");
    for (uint32_t i = 0; fs && dra_ynode_is_map(fs) && i < fs->n; i++) {
        bool on = false;
        if (dra_ynode_bool(fs->vals[i], k->path, "spec.features", &on, &d) ||
            dra_alloc_features_set_gate(&k->feat, fs->keys[i]->text, on, &d))
            return case_fail_msg(k, d.msg);
    }
    if (k->rules.n && dra_taint_rules_enabled(&k->feat) &&
        dra_taint_rules_apply(&k->rules, &k->m, k->cel, &k->feat, NULL, &d) != DRA_OK)
        return case_fail_msg(k, d.msg);
    return STEP_NEXT;
}

/* "ns/name" -> ns (default "default") and the name after the slash. */
static const char *split_ns(const char *s, char *ns, size_t nslen)
{
    snprintf(ns, nslen, "default");
    const char *sl = strchr(s, '/');
    if (!sl)
        return s;
    snprintf(ns, nslen, "%.*s", (int)(sl - s), s);
    return sl + 1;
}

/* The pod of a {pod: ...} entry as the scheduler checks it on nodes (core/extres). */
static dra_extres_pod_t case_pod(const kase_t *k)
{
    dra_extres_pod_t p = {.map = &k->xmap, .m = &k->m, .f = &k->feat, .pod = k->xpod,
                          .req = &k->xreq, .user_claims = k->xpod->nclaims > 0};
    return p;
}

/* A spec.claims entry {pod: "ns/name", name: KEY}: the pod's extended-resource claim on the
 * case's node (key KEY, default "<ns>/<pod>-extended-resources"), when the scheduler builds one
 * there; the node filters and NodeResourcesFit (against the Node object's allocatable) run
 * first, and a node they reject makes the case's outcome Unsatisfiable with their reason. */
static step_t pod_entry(kase_t *k, const char *pn, const char *key, uint32_t i, uint32_t *j)
{
    char ns[256];
    const char *base = split_ns(pn, ns, sizeof ns);
    const dra_pod_t *pod = NULL;
    for (uint32_t p = 0; p < k->m.npods && !pod; p++)
        if (k->m.pods[p]->name && strcmp(k->m.pods[p]->name, base) == 0 &&
            strcmp(nz(k->m.pods[p]->namespace_), ns) == 0)
            pod = k->m.pods[p];
    if (!pod) {
        case_line(k, "FAIL %s (%s): spec.claims[%u]: pod %s not found", k->name, k->path, i, pn);
        return STEP_DONE;
    }
    if (k->xpod) {
        case_line(k, "FAIL %s (%s): spec.claims[%u]: one pod entry per case", k->name, k->path, i);
        return STEP_DONE;
    }
    k->xpod = pod;
    if (dra_extres_map_build(&k->m, &k->feat, &k->xmap) ||
        dra_extres_pod(pod, &k->out_arena, &k->xreq))
        return STEP_DONE;
    dra_extres_pod_t p = case_pod(k);
    dra_why_t why;
    if (dra_extres_node_check(&p, k->node, NULL, &k->out_arena, &k->xfit, &why))
        return STEP_DONE;
    if (!k->xfit.fits) {
        k->xunfit = true;
        snprintf(k->xwhy, sizeof k->xwhy, "%s", why.text);
    } else if (k->xfit.claim) {
        k->xidx = *j;
        char dk[300];
        snprintf(dk, sizeof dk, "%s/%s-extended-resources", ns, base);
        k->keys[*j] = key ? key : dra_arena_strdup(&k->out_arena, dk);
        k->claims[*j] = k->xfit.claim;
        if (!k->keys[*j])
            return STEP_DONE;
        (*j)++;
    }
    return STEP_NEXT;
}

/* 4. claims: spec.node (a node that no object names is a bare node of that name, default
 * node-1) and spec.claims: names of claims ("ns/name"), {name, template: "ns/tpl"} or
 * {pod: "ns/name"} (the pod's extended-resource claim). */
static step_t step_claims(kase_t *k)
{
    const char *nodename = scal(dra_ynode_get(k->spec, "node"));
    k->node = nodename ? dra_model_find_node(&k->m, nodename) : NULL;
    if (!k->node) {
        k->tmpnode.name = nodename ? nodename : "node-1";
        k->node = &k->tmpnode;
    }
    const dra_ynode_t *cl = dra_ynode_get(k->spec, "claims");
    if (dra_ynode_get(k->spec, "pod")) {
        if (cl) {
            case_line(k, "FAIL %s (%s): invalid case: spec.pod and spec.claims: the pod's claims "
                         "are the claims to allocate, give one or the other",
                      k->name, k->path);
            return STEP_DONE;
        }
        return STEP_NEXT; /* after spec.allocated (step_state): which of its claims are allocated */
    }
    k->nc = cl && dra_ynode_is_seq(cl) ? cl->n : 0;
    k->claims = dra_arena_calloc(&k->out_arena, k->nc ? k->nc : 1, sizeof *k->claims, 8);
    k->keys = dra_arena_calloc(&k->out_arena, k->nc ? k->nc : 1, sizeof *k->keys, 8);
    if (!k->claims || !k->keys)
        return STEP_DONE;
    uint32_t j = 0; /* claims so far (a pod entry may make none) */
    for (uint32_t i = 0; i < k->nc; i++) {
        const dra_ynode_t *e = cl->vals[i];
        const char *cn = scal(e) ? scal(e) : scal(dra_ynode_get(e, "name"));
        const char *tn = scal(dra_ynode_get(e, "template"));
        const char *pn = scal(dra_ynode_get(e, "pod"));
        if (pn && tn) {
            case_line(k, "FAIL %s (%s): spec.claims[%u]: pod and template exclude each other",
                      k->name, k->path, i);
            return STEP_DONE;
        }
        if (pn) {
            step_t st = pod_entry(k, pn, cn, i, &j);
            if (st != STEP_NEXT)
                return st;
            continue;
        }
        if (!cn) {
            case_line(k, "FAIL %s (%s): spec.claims[%u]: missing name", k->name, k->path, i);
            return STEP_DONE;
        }
        k->keys[j] = cn;
        char ns[256];
        if (tn) {
            tn = split_ns(tn, ns, sizeof ns);
            const dra_claim_t *t = dra_model_find_template(&k->m, ns, tn);
            if (!t) {
                case_line(k, "FAIL %s (%s): template %s/%s not found", k->name, k->path, ns,
                        tn);
                return STEP_DONE;
            }
            k->claims[j] = dra_model_instantiate(&k->m, t, ns, cn);
        } else {
            const char *base = split_ns(cn, ns, sizeof ns);
            k->claims[j] = dra_model_find_claim(&k->m, ns, base);
        }
        if (!k->claims[j]) {
            case_line(k, "FAIL %s (%s): claim %s not found", k->name, k->path, cn);
            return STEP_DONE;
        }
        j++;
    }
    k->nc = j;
    return STEP_NEXT;
}

/* spec.allocated {name, node}: the claim allocated on node first, as the earlier pod that got
 * it did (same allocator, budget and features as the case's call), and committed. */
static step_t allocate_first(kase_t *k, dra_claim_t *c, const char *cn, const char *nodename)
{
    const dra_node_t *node = dra_model_find_node(&k->m, nodename);
    if (!node) {
        case_line(k, "FAIL %s (%s): invalid case: spec.allocated %s: node %s not found", k->name,
                  k->path, cn, nodename);
        return STEP_DONE;
    }
    dra_anyalloc_t al = {0};
    dra_alloc_outcome_t out;
    if (dra_anyalloc_new(k->o->kind, &k->m, &k->feat, k->st, k->cel, &k->ao, &al) ||
        dra_anyalloc_allocate(&al, node, &c, 1, &k->m.arena, &out)) {
        dra_anyalloc_free(&al);
        return STEP_DONE;
    }
    dra_anyalloc_free(&al);
    if (out.kind != DRA_OUTCOME_ALLOCATED) {
        case_line(k, "FAIL %s (%s): invalid case: spec.allocated %s on %s: %s: %s", k->name,
                  k->path, cn, nodename, dra_outcome_name(out.kind), out.msg);
        return STEP_DONE;
    }
    c->allocation = out.allocations[0];
    return dra_alloc_state_commit(k->st, c->allocation) ? STEP_DONE : STEP_NEXT;
}

/* spec.pod ([ns/]name, or {name, replica}): the claims to allocate are the pod's (its replica's:
 * <name>-<replica> when the workload has several), those allocated already go to k->done. */
static step_t pod_claims(kase_t *k, const dra_ynode_t *pn)
{
    const char *full = scal(pn) ? scal(pn) : scal(dra_ynode_get(pn, "name"));
    const char *rp = scal(dra_ynode_get(pn, "replica"));
    char ns[256];
    const char *base = split_ns(full ? full : "", ns, sizeof ns);
    const dra_pod_t *pod = NULL;
    for (uint32_t i = 0; i < k->m.npods && !pod; i++)
        if (strcmp(nz(k->m.pods[i]->name), base) == 0 &&
            strcmp(nz(k->m.pods[i]->namespace_), ns) == 0)
            pod = k->m.pods[i];
    unsigned long long rep = 0;
    int64_t reps = pod ? (pod->replicas > 0 ? pod->replicas : 1) : 0;
    if (!pod || (rp && !dra_io_parse_u64(rp, &rep)) || rep >= (unsigned long long)reps) {
        case_line(k, "FAIL %s (%s): invalid case: spec.pod %s%s%s: %s", k->name, k->path,
                  nz(full), rp ? " replica " : "", rp ? rp : "",
                  pod ? "no such replica" : "no such Pod or workload");
        return STEP_DONE;
    }
    char podname[300];
    if (reps > 1)
        snprintf(podname, sizeof podname, "%s-%llu", base, rep);
    else
        snprintf(podname, sizeof podname, "%s", base);
    k->claims = dra_arena_calloc(&k->out_arena, 64, sizeof *k->claims, 8);
    k->keys = dra_arena_calloc(&k->out_arena, 64, sizeof *k->keys, 8);
    if (!k->claims || !k->keys)
        return STEP_DONE;
    dra_diag_t d;
    dra_diag_clear(&d);
    if (dra_conf_pod_claims(&k->m, pod, podname, k->claims, &k->nc, k->done, &k->nd, 64, &d)) {
        case_line(k, "FAIL %s (%s): invalid case: spec.pod %s: %s", k->name, k->path, nz(full),
                  d.msg);
        return STEP_DONE;
    }
    for (uint32_t i = 0; i < k->nc; i++)
        k->keys[i] = k->claims[i]->name;
    /* its extended resources: the claim the scheduler builds on the case's node after the pod's
       own claims, the node filters and NodeResourcesFit first (pod_entry, as for a {pod: ...}
       entry of spec.claims) */
    if (k->nc >= 64) {
        case_line(k, "FAIL %s (%s): invalid case: spec.pod %s: more than 63 claims", k->name,
                  k->path, nz(full));
        return STEP_DONE;
    }
    uint32_t j = k->nc;
    step_t st = pod_entry(k, full, NULL, 0, &j);
    k->nc = j;
    return st;
}

/* 5. state: spec.allocated committed (or allocated first on their node), spec.pod's claims; the
 * search budget (spec.maxSteps, else the caller's). */
static step_t step_state(kase_t *k)
{
    if (dra_alloc_state_new(&k->m, &k->feat, &k->st))
        return STEP_DONE;
    k->ao.share_seed = 1;
    const dra_ynode_t *ms = dra_ynode_get(k->spec, "maxSteps"); /* drabench extension */
    k->spec_budget = ms != NULL;
    if (ms) {
        dra_diag_t d;
        dra_diag_clear(&d);
        int64_t v = 0;
        if (dra_ynode_int64(ms, k->path, "spec.maxSteps", &v, &d) != DRA_OK || v < 0)
            return case_fail_msg(k, v < 0 ? "spec.maxSteps: negative" : d.msg);
        k->ao.max_steps = (uint64_t)v;
    } else {
        k->ao.max_steps = dra_conf_budget(k->o, k->o->kind);
    }
    const dra_ynode_t *alc = dra_ynode_get(k->spec, "allocated");
    for (uint32_t i = 0; alc && dra_ynode_is_seq(alc) && i < alc->n; i++) {
        const char *cn = scal(alc->vals[i]) ? scal(alc->vals[i])
                                            : scal(dra_ynode_get(alc->vals[i], "name"));
        const char *on = scal(dra_ynode_get(alc->vals[i], "node"));
        char ns[256];
        const char *base = split_ns(cn ? cn : "", ns, sizeof ns);
        dra_claim_t *c = dra_model_find_claim(&k->m, ns, base);
        if (c && !c->allocation && on) {
            if (allocate_first(k, c, nz(cn), on) != STEP_NEXT)
                return STEP_DONE;
            continue;
        }
        if (!c || !c->allocation || on) {
            case_line(k,
                    "FAIL %s (%s): allocated claim %s not found or has no status.allocation%s",
                    k->name, k->path, nz(cn), on ? " (or has one already: then no node)" : "");
            return STEP_DONE;
        }
        if (dra_alloc_state_commit(k->st, c->allocation))
            return STEP_DONE;
    }
    const dra_ynode_t *pn = dra_ynode_get(k->spec, "pod");
    if (pn && pod_claims(k, pn) != STEP_NEXT)
        return STEP_DONE;
    k->digest0 = dra_alloc_state_digest(k->st);
    return STEP_NEXT;
}

/* 6b. --allocator both: the fast allocator without and with pruning decides as the reference
 * did, under the case's or the given budget as the reference; under the default budget only
 * when the reference ran into it (else the reference's count bounds theirs, and without a budget
 * the pruning is on). */
static step_t step_differential(kase_t *k)
{
    dra_alloc_options_t fao = k->ao;
    if (!k->spec_budget && !k->o->max_steps_set &&
        !(k->ao.max_steps && k->res.stats.allocate_one > k->ao.max_steps))
        fao.max_steps = 0;
    for (int pr = 0; pr < 2; pr++) {
        dra_fast_t *fa = NULL;
        dra_alloc_outcome_t fo;
        char why[DRA_DIAG_MSG_MAX * 2 + 64];
        if (dra_fast_new(&k->m, &k->feat, k->st, k->cel, &fao, &fa))
            return STEP_DONE;
        dra_fast_set_pruning(fa, pr == 1);
        int frc = dra_fast_allocate(fa, k->node, k->claims, k->nc, &k->out_arena, &fo);
        if (frc)
            failf(&k->f, "fast allocator: %s", dra_strerror(frc));
        else if (dra_alloc_outcome_differs(&k->res, &fo, why, sizeof why))
            failf(&k->f, "fast allocator%s differs: %s", pr ? "" : " (no pruning)", why);
        else if (!pr && fo.stats.allocate_one != k->res.stats.allocate_one)
            failf(&k->f, "fast allocator (no pruning): allocateOne %llu, reference %llu",
                  (unsigned long long)fo.stats.allocate_one,
                  (unsigned long long)k->res.stats.allocate_one);
        dra_fast_free(fa);
    }
    return STEP_NEXT;
}

/* The placement engine's answer on the case's node, over its own table and a fast allocator
 * without a budget: its direct answer where the plan has one there (core/engine/direct.c), else
 * that allocator. Compared with the reference's decision. */
static void engine_compare(kase_t *k, uint32_t ni)
{
    dra_arena_t ta, oa;
    dra_arena_init(&ta, 0);
    dra_arena_init(&oa, 0);
    dra_table_t *t = NULL;
    dra_anyalloc_t fa = {0};
    dra_engine_t *e = NULL;
    dra_diag_t d;
    dra_diag_clear(&d);
    dra_alloc_options_t fao = k->ao;
    fao.max_steps = 0;
    uint32_t plan = 0;
    dra_engine_result_t er;
    int rc = dra_table_build(&k->m, &ta, &t, &d);
    if (!rc)
        rc = dra_anyalloc_new(DRA_ALLOC_FAST, &k->m, &k->feat, k->st, k->cel, &fao, &fa);
    if (!rc)
        rc = dra_engine_new(&k->m, t, &k->feat, k->st, k->cel, &fa, NULL, &e, &d);
    if (rc == DRA_EINVAL && !e) { /* a node's allocatable the engine cannot read: no engine */
        rc = DRA_OK;
        goto out;
    }
    if (!rc)
        rc = dra_engine_plan(e, k->claims, k->nc, &plan);
    if (!rc)
        rc = dra_engine_answer_on(e, plan, ni, &oa, &er);
    if (rc) {
        failf(&k->f, "placement engine: %s", dra_strerror(rc));
        goto out;
    }
    dra_alloc_outcome_t eo;
    memset(&eo, 0, sizeof eo);
    eo.kind = er.kind;
    eo.allocations = er.allocations;
    eo.n = er.n;
    memcpy(eo.msg, er.msg, sizeof eo.msg);
    char why[DRA_DIAG_MSG_MAX * 2 + 64];
    if (dra_alloc_outcome_differs(&k->res, &eo, why, sizeof why))
        failf(&k->f, "placement engine (%s) differs: %s", dra_engine_served_name(er.served), why);
    else if (k->o->engine_direct && er.served >= DRA_SERVED_DIRECT_FIRST &&
             er.served <= DRA_SERVED_DIRECT_REQUESTS)
        (*k->o->engine_direct)++;
out:
    dra_engine_free(e);
    dra_anyalloc_free(&fa);
    dra_arena_fini(&oa);
    dra_arena_fini(&ta);
}

/* 6c. --allocator both: the placement engine answers on the case's node as the reference did,
 * unless the reference ran out of its budget (the engine's allocator has none) or the node is
 * not one of the model's. */
static void step_engine(kase_t *k)
{
    if (k->ao.max_steps && k->res.stats.allocate_one > k->ao.max_steps)
        return;
    for (uint32_t i = 0; i < k->m.nnodes; i++)
        if (k->m.nodes[i] == k->node) {
            engine_compare(k, i);
            return;
        }
}

/* --explain of a {pod: ...} case on node: the scheduler's checks on that node
 * (dra_extres_node_check, the reason the case's node gets too), else the case's claims with
 * the node's own special claim in place of the case node's; PreBind after. Returns the claims
 * to verify in batch / *nb (0 with *w set: the checks rejected the node). */
static int pod_explain_claims(kase_t *k, const dra_node_t *node, dra_claim_t **batch,
                              uint32_t *nb, dra_extres_fit_t *fit, dra_why_t *w)
{
    dra_extres_pod_t p = case_pod(k);
    int rc = dra_extres_node_check(&p, node, NULL, &k->out_arena, fit, w);
    *nb = 0;
    if (rc || !fit->fits)
        return rc;
    for (uint32_t c = 0; c < k->nc; c++)
        if (c != k->xidx)
            batch[(*nb)++] = k->claims[c];
    if (fit->claim)
        batch[(*nb)++] = fit->claim;
    return DRA_OK;
}

/* 6d. --explain: the explain mode agrees with the allocator on the case's node and on every
 * Node of the case (dra_explain_verify: outcome, the node's view, allocated devices passing
 * every check, reasons confirmed by brute force on small instances). Unless the reference ran
 * out of its budget (explain would spend it three times over). A {pod: ...} case: on every node
 * the scheduler's checks first (the case's node must get the case's reason), then the claims
 * with that node's special claim, and PreBind (the case's outcome on its node). */
static void step_explain(kase_t *k)
{
    if (k->ao.max_steps && k->res.stats.allocate_one > k->ao.max_steps)
        return;
    dra_explainer_t *x = NULL;
    dra_alloc_options_t ao = k->ao;
    dra_claim_t **batch = calloc(k->nc + 1, sizeof *batch);
    if (!batch || dra_explainer_new(&k->m, &k->feat, k->st, k->cel, &ao, &x)) {
        free(batch);
        failf(&k->f, "explain: out of memory");
        return;
    }
    for (uint32_t i = 0; i <= k->m.nnodes; i++) {
        const dra_node_t *node = i == 0 ? k->node : k->m.nodes[i - 1];
        if (i > 0 && node == k->node)
            continue;
        dra_why_t w;
        char msg[DRA_DIAG_MSG_MAX * 2];
        dra_claim_t *const *claims = k->claims;
        uint32_t n = k->nc;
        dra_arena_mark_t mk = dra_arena_mark(&k->out_arena);
        dra_extres_fit_t fit = {.fits = true};
        int rc = DRA_OK;
        if (k->xpod) {
            rc = pod_explain_claims(k, node, batch, &n, &fit, &w);
            claims = batch;
        }
        if (!rc && fit.fits && n == 0) { /* nothing to allocate there: the pod fits */
            dra_why_scheduler(&w, DRA_WHY_FITS, -1, "the pod passes the node's checks and has no "
                                                    "claim to allocate");
            w.outcome = DRA_OUTCOME_ALLOCATED;
        } else if (!rc && fit.fits) {
            rc = dra_explain_verify(x, node, claims, n, 200000, &w, msg, sizeof msg);
        }
        if (!rc && fit.fits && w.kind == DRA_WHY_FITS && fit.claim && fit.claim->nrequests == 0) {
            dra_extres_prebind_msg(NULL, nz(k->xpod->namespace_), nz(k->xpod->name), msg,
                                   sizeof msg);
            dra_why_scheduler(&w, DRA_WHY_FATAL, -1, msg);
            w.outcome = DRA_OUTCOME_FATAL;
        }
        dra_arena_reset_to(&k->out_arena, mk);
        if (rc == DRA_EINTERNAL)
            failf(&k->f, "explain on node %s: %s", nz(node->name), msg);
        else if (rc)
            failf(&k->f, "explain on node %s: %s", nz(node->name), dra_strerror(rc));
        if (rc)
            break;
        if (i == 0 && k->xpod &&
            (w.outcome != k->res.kind ||
             (!fit.fits && strcmp(w.text, k->res.msg) != 0))) {
            failf(&k->f, "explain on node %s: %s (%s) but the case's outcome is %s: %s",
                  nz(node->name), dra_outcome_name(w.outcome), w.text,
                  dra_outcome_name(k->res.kind), k->res.msg);
            break;
        }
        if (k->o->explain_nodes)
            (*k->o->explain_nodes)++;
        if (k->o->explain_fallback && w.kind == DRA_WHY_SEARCH)
            (*k->o->explain_fallback)++;
        if (i == 0 && k->o->verbose && w.kind != DRA_WHY_FITS)
            snprintf(k->why_msg, sizeof k->why_msg, "%s", w.text);
    }
    dra_explainer_free(x);
    free(batch);
}

/* 6. allocate: one call of the chosen allocator, timed; then the differential runs. A pod
 * whose node is rejected by the node filters or NodeResourcesFit (a {pod: ...} entry, spec.pod)
 * is Unsatisfiable without a call; then a pod's allocated claims (spec.pod) are checked, as the
 * scheduler's DynamicResources Filter does: a node one of their allocations cannot be used on is
 * Unsatisfiable there ("resourceclaim not available on the node") without an allocator call; a
 * pod with nothing left to allocate is Allocated where they allow it. An allocated
 * extended-resource claim without requests fails at PreBind (Fatal). */
static step_t step_allocate(kase_t *k)
{
    if (k->xunfit) {
        memset(&k->res, 0, sizeof k->res);
        k->res.kind = DRA_OUTCOME_UNSATISFIABLE;
        snprintf(k->res.msg, sizeof k->res.msg, "%s", k->xwhy);
        if (k->o->explain)
            step_explain(k);
        k->result = DRA_CONF_FAIL;
        return STEP_NEXT;
    }
    if (k->nd || dra_ynode_get(k->spec, "pod")) {
        bool ok = true, ops = false;
        uint32_t which = 0;
        char err[DRA_DIAG_MSG_MAX];
        memset(&k->res, 0, sizeof k->res);
        if (dra_conf_available_on(k->done, k->nd, k->node, &k->feat, &ok, &ops, &which, err,
                                  sizeof err)) {
            k->res.kind = DRA_OUTCOME_FATAL;
            snprintf(k->res.msg, sizeof k->res.msg, "%s", err);
        } else if (!ok && ops) {
            k->res.kind = DRA_OUTCOME_UNSATISFIABLE;
            snprintf(k->res.msg, sizeof k->res.msg,
                     "resourceclaim not available on the node: claim %s/%s skips node operations "
                     "(skipNodeOperations) and node %s does not declare DRAOptionalNodeOperations",
                     nz(k->done[which]->namespace_), nz(k->done[which]->name), nz(k->node->name));
        } else if (!ok) {
            k->res.kind = DRA_OUTCOME_UNSATISFIABLE;
            snprintf(k->res.msg, sizeof k->res.msg,
                     "resourceclaim not available on the node: claim %s/%s is allocated with a "
                     "nodeSelector node %s does not match",
                     nz(k->done[which]->namespace_), nz(k->done[which]->name), nz(k->node->name));
        } else if (k->nc == 0) {
            k->res.kind = DRA_OUTCOME_ALLOCATED;
        }
        if (!ok || k->nc == 0 || k->res.kind == DRA_OUTCOME_FATAL) {
            k->result = DRA_CONF_FAIL;
            return STEP_NEXT;
        }
    }
    if (dra_anyalloc_new(k->o->kind, &k->m, &k->feat, k->st, k->cel, &k->ao, &k->al))
        return STEP_DONE;
    struct timespec ta, tb;
    clock_gettime(CLOCK_MONOTONIC, &ta);
    if (dra_anyalloc_allocate(&k->al, k->node, k->claims, k->nc, &k->out_arena, &k->res))
        return STEP_DONE;
    clock_gettime(CLOCK_MONOTONIC, &tb);
    if (k->o->both && step_differential(k) != STEP_NEXT)
        return STEP_DONE;
    if (k->o->both)
        step_engine(k);
    k->alloc_ms = (double)(tb.tv_sec - ta.tv_sec) * 1e3 + (double)(tb.tv_nsec - ta.tv_nsec) / 1e6;
    k->result = DRA_CONF_FAIL;
    if (k->res.kind == DRA_OUTCOME_ALLOCATED && k->xfit.claim && k->xfit.claim->nrequests == 0) {
        k->res.kind = DRA_OUTCOME_FATAL;
        dra_extres_prebind_msg(NULL, nz(k->xpod->namespace_), nz(k->xpod->name), k->res.msg,
                               sizeof k->res.msg);
    }
    if (k->o->explain)
        step_explain(k);
    return STEP_NEXT;
}

/* 7a. an allocated outcome: results, node selector, config, invariants (expected or not), and
 * commit + release restoring the state digest. */
static step_t check_allocated(kase_t *k)
{
    fail_t *f = &k->f;
    const dra_ynode_t *ea = dra_ynode_get(k->exp, "allocations");
    for (uint32_t i = 0; ea && dra_ynode_is_map(ea) && i < ea->n; i++) {
        uint32_t c = 0;
        while (c < k->nc && strcmp(k->keys[c], ea->keys[i]->text) != 0)
            c++;
        if (c == k->nc) {
            failf(f, "expect.allocations: unknown claim %s", ea->keys[i]->text);
            break;
        }
        check_results(ea->vals[i], k->res.allocations[c], k->keys[c], f);
    }
    const dra_ynode_t *es = dra_ynode_get(k->exp, "nodeSelector");
    if (es)
        for (uint32_t c = 0; c < k->nc; c++)
            if (!selector_equal(es, k->res.allocations[c]->node_selector))
                failf(f, "claim %s: node selector differs from expect.nodeSelector", k->keys[c]);
    const dra_ynode_t *ecf = dra_ynode_get(k->exp, "config");
    for (uint32_t i = 0; ecf && dra_ynode_is_map(ecf) && i < ecf->n; i++)
        for (uint32_t c = 0; c < k->nc; c++)
            if (strcmp(k->keys[c], ecf->keys[i]->text) == 0)
                check_config(ecf->vals[i], k->res.allocations[c], k->keys[c], f);
    dra_inv_report_t rep;
    bool want_viol = false; /* drabench extension: expect.invariantViolations (bug cases) */
    const dra_ynode_t *iv = dra_ynode_get(k->exp, "invariantViolations");
    if (iv && dra_ynode_bool(iv, k->path, "expect.invariantViolations", &want_viol, NULL))
        failf(f, "expect.invariantViolations: expected true or false");
    if (dra_inv_check(&k->m, &k->feat, k->st, k->cel, k->node, k->claims, k->res.allocations, k->nc,
                      &rep) == DRA_OK) {
        if (rep.nviolations && !want_viol)
            failf(f, "invariant violated (%u): %s", rep.nviolations, rep.first[0]);
        else if (!rep.nviolations && want_viol)
            failf(f, "expected an invariant violation, found none");
    }
    for (uint32_t c = 0; c < k->nc; c++)
        if (dra_alloc_state_commit(k->st, k->res.allocations[c]))
            return STEP_DONE;
    for (uint32_t c = k->nc; c-- > 0;)
        if (dra_alloc_state_release(k->st, k->res.allocations[c]))
            failf(f, "release of claim %s failed", k->keys[c]);
    if (dra_alloc_state_digest(k->st) != k->digest0)
        failf(f, "state digest differs after commit + release");
    return STEP_NEXT;
}

/* expect.extendedResourceClaim: null (no claim built) or the built claim's requests (name,
 * deviceClassName, count; all, in order) and requestMappings (all, in order). */
static void check_extended(kase_t *k)
{
    const dra_ynode_t *x = dra_ynode_get(k->exp, "extendedResourceClaim");
    if (!x)
        return;
    fail_t *f = &k->f;
    const dra_claim_t *c = k->xfit.claim;
    if (!k->xpod) {
        failf(f, "expect.extendedResourceClaim without a {pod: ...} entry in spec.claims");
        return;
    }
    if (dra_ynode_is_null(x)) {
        if (c)
            failf(f, "extended-resource claim built (%u requests), expected none", c->nrequests);
        return;
    }
    if (!c) {
        failf(f, "no extended-resource claim built%s%s", k->xunfit ? ": " : "",
              k->xunfit ? k->xwhy : "");
        return;
    }
    const dra_ynode_t *rq = dra_ynode_get(x, "requests");
    if (rq) {
        uint32_t n = dra_ynode_is_seq(rq) ? rq->n : 0;
        if (n != c->nrequests)
            failf(f, "extended-resource claim: %u requests, expected %u", c->nrequests, n);
        for (uint32_t i = 0; i < n && i < c->nrequests; i++) {
            const dra_ynode_t *e = rq->vals[i];
            const dra_exact_request_t *ex = c->requests[i].exactly;
            const char *nm = scal(dra_ynode_get(e, "name"));
            const char *cl = scal(dra_ynode_get(e, "deviceClassName"));
            const char *ct = scal(dra_ynode_get(e, "count"));
            char have[32];
            snprintf(have, sizeof have, "%lld", (long long)ex->count);
            if ((nm && strcmp(nm, nz(c->requests[i].name)) != 0) ||
                (cl && strcmp(cl, nz(ex->class_name)) != 0) || (ct && strcmp(ct, have) != 0))
                failf(f,
                      "extended-resource claim: request %u is %s (class %s, count %lld), "
                      "expected %s (class %s, count %s)",
                      i, nz(c->requests[i].name), nz(ex->class_name), (long long)ex->count, nz(nm),
                      nz(cl), nz(ct));
        }
    }
    const dra_ynode_t *mp = dra_ynode_get(x, "requestMappings");
    if (mp) {
        uint32_t n = dra_ynode_is_seq(mp) ? mp->n : 0;
        if (n != k->xfit.nmappings)
            failf(f, "extended-resource claim: %u request mappings, expected %u", k->xfit.nmappings,
                  n);
        for (uint32_t i = 0; i < n && i < k->xfit.nmappings; i++) {
            const dra_ynode_t *e = mp->vals[i];
            const dra_request_mapping_t *m = &k->xfit.mappings[i];
            const char *cn = scal(dra_ynode_get(e, "containerName"));
            const char *rn = scal(dra_ynode_get(e, "resourceName"));
            const char *qn = scal(dra_ynode_get(e, "requestName"));
            if ((cn && strcmp(cn, nz(m->container)) != 0) ||
                (rn && strcmp(rn, nz(m->resource)) != 0) || (qn && strcmp(qn, nz(m->request)) != 0))
                failf(f,
                      "extended-resource claim: mapping %u is (%s, %s, %s), expected (%s, %s, "
                      "%s)",
                      i, nz(m->container), nz(m->resource), nz(m->request), nz(cn), nz(rn), nz(qn));
        }
    }
}

/* 7. expect: outcome and errorContains, the allocation, stats.allocateOneInvocations (for the
 * fast allocator an upper bound). */
static step_t step_expect(kase_t *k)
{
    const dra_alloc_outcome_t *r = &k->res;
    check_extended(k);
    const char *have = dra_outcome_name(r->kind);
    if (!k->want || strcmp(k->want, have) != 0)
        failf(&k->f, "outcome %s%s%s, expected %s", have, r->msg[0] ? ": " : "", r->msg,
              nz(k->want));
    if (k->ec && !strstr(r->msg, k->ec))
        failf(&k->f, "error \"%s\" does not contain \"%s\"", r->msg, k->ec);
    if (r->kind == DRA_OUTCOME_ALLOCATED && check_allocated(k) != STEP_NEXT)
        return STEP_DONE;
    const dra_ynode_t *stats = dra_ynode_get(k->exp, "stats");
    const dra_ynode_t *ai = dra_ynode_get(stats, "allocateOneInvocations");
    if (ai) {
        int64_t v = 0;
        if (dra_ynode_int64(ai, k->path, "expect.stats.allocateOneInvocations", &v, NULL) ==
                DRA_OK &&
            ((uint64_t)v != r->stats.allocate_one &&
             (k->o->kind != DRA_ALLOC_FAST || (uint64_t)v < r->stats.allocate_one)))
            failf(&k->f, "allocateOneInvocations %llu, expected %lld",
                  (unsigned long long)r->stats.allocate_one, (long long)v);
    }
    snprintf(k->have_msg, sizeof k->have_msg, "%s%s%s (allocateOne %llu, %.2f ms)", have,
             r->msg[0] ? ": " : "", r->msg, (unsigned long long)r->stats.allocate_one, k->alloc_ms);
    return STEP_REPORT;
}

/* The PASS or FAIL line of a case whose expectations were checked. */
/* ---- GroupTest: pods scheduled with their PodGroups ------------------------------------------ */

/* What happened to one pod (replica) of a GroupTest. */
typedef struct gpod {
    const char *name;
    const char *node;  /* NULL: not placed */
    const char *waits; /* the reason it was never tried */
} gpod_t;

typedef struct gctx {
    kase_t *k;
    dra_mgroups_t *mg;
    dra_group_ctx_t *cx;
    dra_alloc_state_t *fst; /* both: the fast allocator's state */
    dra_anyalloc_t fal;
    dra_diag_list_t notes;
    gpod_t *pods;
    uint32_t npods, cap;
    dra_group_result_t *res; /* per group */
    bool *ran;
    dra_engine_policy_t policy;
} gctx_t;

static int gpod_add(gctx_t *g, const char *name, const char *node, const char *waits)
{
    if (g->npods == g->cap) {
        uint32_t nc = g->cap ? g->cap * 2 : 16;
        gpod_t *v = realloc(g->pods, nc * sizeof *v);
        if (!v)
            return DRA_ENOMEM;
        g->pods = v;
        g->cap = nc;
    }
    g->pods[g->npods++] = (gpod_t){name, node, waits};
    return DRA_OK;
}

/* A pod alone: the claims of the replica, first-fit over the nodes, committed. */
static int gt_alone(gctx_t *g, const dra_pod_t *pod, int64_t reps, int64_t rep)
{
    kase_t *k = g->k;
    char name[600];
    if (reps > 1)
        snprintf(name, sizeof name, "%s-%lld", nz(pod->name), (long long)rep);
    else
        snprintf(name, sizeof name, "%s", nz(pod->name));
    const char *pname = dra_arena_strdup(&k->out_arena, name);
    dra_claim_t *batch[64];
    uint32_t nb = 0;
    for (uint32_t i = 0; i < pod->nclaims && nb < 64; i++) {
        const dra_pod_claim_t *pc = &pod->claims[i];
        dra_claim_t *c = NULL;
        if (pc->claim_name) {
            c = dra_model_find_claim(&k->m, pod->namespace_, pc->claim_name);
        } else if (pc->template_name) {
            const dra_claim_t *t = dra_model_find_template(&k->m, pod->namespace_, pc->template_name);
            char cn[700];
            snprintf(cn, sizeof cn, "%s-%s", name, nz(pc->name));
            c = t ? dra_model_instantiate(&k->m, t, pod->namespace_, cn) : NULL;
        }
        if (!c)
            return gpod_add(g, pname, NULL, NULL);
        if (!c->allocation)
            batch[nb++] = c;
    }
    for (uint32_t n = 0; n < k->m.nnodes; n++) {
        dra_alloc_outcome_t o;
        int rc = nb ? dra_anyalloc_allocate(&k->al, k->m.nodes[n], batch, nb, &k->out_arena, &o)
                    : DRA_OK;
        if (rc)
            return rc;
        if (nb && o.kind != DRA_OUTCOME_ALLOCATED)
            continue;
        for (uint32_t i = 0; i < nb; i++) {
            batch[i]->allocation = o.allocations[i];
            if ((rc = dra_alloc_state_commit(k->st, o.allocations[i])) ||
                (g->fst && (rc = dra_alloc_state_commit(g->fst, o.allocations[i]))))
                return rc;
        }
        return gpod_add(g, pname, k->m.nodes[n]->name, NULL);
    }
    return gpod_add(g, pname, NULL, NULL);
}

/* One group's cycle (and, with both, the fast allocator's on its own state, compared). */
static int gt_group(gctx_t *g, uint32_t gi)
{
    kase_t *k = g->k;
    dra_mgroups_env_t env = {&k->al, k->st, NULL, g->policy, false};
    int rc = dra_mgroups_schedule(g->mg, gi, &env, g->cx, &k->out_arena, &g->res[gi]);
    if (rc)
        return rc;
    uint32_t nm = dra_mgroups_members(g->mg, gi);
    if (g->fst) {
        dra_mgroups_env_t fenv = {&g->fal, g->fst, NULL, g->policy, true};
        dra_group_result_t fr;
        if ((rc = dra_mgroups_schedule(g->mg, gi, &fenv, g->cx, &k->out_arena, &fr)))
            return rc;
        char why[256];
        if (!dra_group_result_equal(&g->res[gi], &fr, nm, why, sizeof why))
            failf(&k->f, "PodGroup %s: reference and fast allocators decide differently: %s",
                  nz(dra_mgroups_podgroup(g->mg, gi)->name), why);
    }
    g->ran[gi] = true;
    dra_mgroups_apply(g->mg, gi, &g->res[gi]);
    for (uint32_t i = 0; i < nm; i++) {
        const dra_group_member_res_t *mr = &g->res[gi].members[i];
        const char *node = mr->node < k->m.nnodes && mr->kind == DRA_OUTCOME_ALLOCATED
                               ? k->m.nodes[mr->node]->name
                               : NULL;
        if ((rc = gpod_add(g, dra_mgroups_member_name(g->mg, gi, i), node, NULL)))
            return rc;
    }
    return DRA_OK;
}

static const gpod_t *gt_find_pod(const gctx_t *g, const char *name)
{
    for (uint32_t i = 0; i < g->npods; i++)
        if (strcmp(g->pods[i].name, name) == 0)
            return &g->pods[i];
    return NULL;
}

static uint32_t gt_find_group(const gctx_t *g, const char *key)
{
    char ns[256];
    const char *base = split_ns(key, ns, sizeof ns);
    for (uint32_t i = 0; i < dra_mgroups_count(g->mg); i++) {
        const dra_podgroup_t *pg = dra_mgroups_podgroup(g->mg, i);
        if (pg->name && strcmp(pg->name, base) == 0 &&
            (!strchr(key, '/') || strcmp(pg->namespace_ ? pg->namespace_ : "default", ns) == 0))
            return i;
    }
    return UINT32_MAX;
}

static void gt_expect(gctx_t *g)
{
    kase_t *k = g->k;
    const dra_ynode_t *pods = dra_ynode_get(k->exp, "pods");
    for (uint32_t i = 0; pods && dra_ynode_is_map(pods) && i < pods->n; i++) {
        const char *pn = pods->keys[i]->text;
        const dra_ynode_t *e = pods->vals[i];
        const gpod_t *p = gt_find_pod(g, pn);
        if (!p) {
            failf(&k->f, "expect.pods.%s: no such pod", pn);
            continue;
        }
        const char *node = scal(dra_ynode_get(e, "node"));
        const char *placed = scal(dra_ynode_get(e, "placed"));
        const char *waits = scal(dra_ynode_get(e, "waits"));
        if (node && strcmp(node, nz(p->node)) != 0)
            failf(&k->f, "pod %s: on %s, expected %s", pn, p->node ? p->node : "no node", node);
        if (placed && (strcmp(placed, "true") == 0) != (p->node != NULL))
            failf(&k->f, "pod %s: %s, expected %s", pn, p->node ? "placed" : "not placed",
                  strcmp(placed, "true") == 0 ? "placed" : "not placed");
        if (waits && (!p->waits || !strstr(p->waits, waits)))
            failf(&k->f, "pod %s: %s%s, expected it to wait (\"%s\")", pn,
                  p->waits ? "waits: " : "does not wait", p->waits ? p->waits : "", waits);
    }
    const dra_ynode_t *groups = dra_ynode_get(k->exp, "groups");
    for (uint32_t i = 0; groups && dra_ynode_is_map(groups) && i < groups->n; i++) {
        const char *gn = groups->keys[i]->text;
        const dra_ynode_t *e = groups->vals[i];
        uint32_t gi = gt_find_group(g, gn);
        if (gi == UINT32_MAX || !g->ran[gi]) {
            failf(&k->f, "expect.groups.%s: no such PodGroup was scheduled", gn);
            continue;
        }
        const dra_group_result_t *r = &g->res[gi];
        const char *oc = scal(dra_ynode_get(e, "outcome"));
        if (oc && strcmp(oc, dra_group_outcome_name(r->outcome)) != 0)
            failf(&k->f, "PodGroup %s: outcome %s, expected %s (%s)", gn,
                  dra_group_outcome_name(r->outcome), oc, r->reason);
        const char *pl = scal(dra_ynode_get(e, "placed"));
        if (pl && strtoul(pl, NULL, 10) != r->placed)
            failf(&k->f, "PodGroup %s: %u pods placed, expected %s", gn, r->placed, pl);
        const char *sh = scal(dra_ynode_get(e, "short"));
        if (sh && strcmp(sh, dra_group_short_name(r->short_kind)) != 0)
            failf(&k->f, "PodGroup %s: short %s, expected %s (%s)", gn,
                  dra_group_short_name(r->short_kind), sh, r->reason);
        const char *rc = scal(dra_ynode_get(e, "reasonContains"));
        if (rc && !strstr(r->reason, rc))
            failf(&k->f, "PodGroup %s: reason \"%s\" does not contain \"%s\"", gn, r->reason, rc);
        const char *dom = scal(dra_ynode_get(e, "domain"));
        if (dom) {
            const dra_podgroup_t *pg = dra_mgroups_podgroup(g->mg, gi);
            const char *have = NULL;
            if (r->domain != UINT32_MAX && pg->s.ntopology) {
                /* the value of the key on a node the group placed a pod on */
                for (uint32_t m = 0; m < r->pending + r->bound && !have; m++)
                    if (r->members[m].node < k->m.nnodes)
                        have = dra_node_label(k->m.nodes[r->members[m].node], pg->s.topology[0]);
            }
            if (!have || strcmp(have, dom) != 0)
                failf(&k->f, "PodGroup %s: placed in %s, expected %s", gn, have ? have : "no domain",
                      dom);
        }
    }
    const dra_ynode_t *claims = dra_ynode_get(k->exp, "claims");
    for (uint32_t i = 0; claims && dra_ynode_is_map(claims) && i < claims->n && !k->f.failed; i++) {
        char ns[256];
        const char *key = claims->keys[i]->text;
        const char *base = split_ns(key, ns, sizeof ns);
        const dra_claim_t *c = NULL;
        for (uint32_t j = 0; j < k->m.nclaims && !c; j++)
            if (k->m.claims[j]->name && strcmp(k->m.claims[j]->name, base) == 0 &&
                (!strchr(key, '/') || strcmp(nz(k->m.claims[j]->namespace_), ns) == 0))
                c = k->m.claims[j];
        if (!c)
            failf(&k->f, "expect.claims.%s: no such claim", key);
        else if (!c->allocation)
            failf(&k->f, "claim %s: not allocated", key);
        else
            check_results(claims->vals[i], c->allocation, key, &k->f);
    }
    const dra_ynode_t *nc = dra_ynode_get(k->exp, "notesContain");
    for (uint32_t i = 0; nc && dra_ynode_is_seq(nc) && i < nc->n; i++) {
        const char *want = scal(nc->vals[i]);
        bool found = false;
        for (size_t j = 0; want && j < g->notes.count && !found; j++)
            found = strstr(g->notes.items[j].msg, want) != NULL;
        if (want && !found)
            failf(&k->f, "no note contains \"%s\"", want);
    }
}

/* GroupTest: state, allocator(s), the pods in input order (PodGroups by their cycles, the
 * others first-fit), the expectations. */
static step_t step_group(kase_t *k)
{
    gctx_t g;
    memset(&g, 0, sizeof g);
    g.k = k;
    dra_diag_list_init(&g.notes);
    step_t ret = STEP_DONE;
    const char *pol = scal(dra_ynode_get(k->spec, "policy"));
    dra_engine_policy_t pols[] = {DRA_ENGINE_FIRST_FIT, DRA_ENGINE_BEST_FIT, DRA_ENGINE_SPREAD,
                                  DRA_ENGINE_RANDOM};
    const char *pnames[] = {"first-fit", "best-fit", "spread", "random"};
    g.policy = DRA_ENGINE_FIRST_FIT;
    for (int i = 0; pol && i < 4; i++)
        if (strcmp(pol, pnames[i]) == 0)
            g.policy = pols[i], pol = NULL;
    if (pol) {
        case_line(k, "FAIL %s (%s): invalid case: spec.policy \"%s\" is none of first-fit, "
                     "best-fit, spread, random",
                  k->name, k->path, pol);
        goto out;
    }
    if (dra_mgroups_new(&k->m, &k->feat, &g.mg, &g.notes) ||
        dra_alloc_state_new(&k->m, &k->feat, &k->st) || dra_alloc_state_add_model_claims(k->st)) {
        case_line(k, "FAIL %s (%s): cannot set up the PodGroups and the state", k->name, k->path);
        goto out;
    }
    dra_alloc_options_t ao = {dra_conf_budget(k->o, k->o->kind), 0};
    if (dra_anyalloc_new(k->o->both ? DRA_ALLOC_REFERENCE : k->o->kind, &k->m, &k->feat, k->st,
                         k->cel, &ao, &k->al))
        goto out;
    if (k->o->both) {
        dra_alloc_options_t fo = {0, 0};
        if (dra_alloc_state_new(&k->m, &k->feat, &g.fst) ||
            dra_alloc_state_add_model_claims(g.fst) ||
            dra_anyalloc_new(DRA_ALLOC_FAST, &k->m, &k->feat, g.fst, k->cel, &fo, &g.fal))
            goto out;
    }
    uint32_t ng = dra_mgroups_count(g.mg);
    g.res = calloc(ng ? ng : 1, sizeof *g.res);
    g.ran = calloc(ng ? ng : 1, sizeof *g.ran);
    if (!g.res || !g.ran ||
        (ng && dra_group_ctx_new(k->m.nnodes, dra_mgroups_max_members(g.mg), &g.cx)))
        goto out;
    int rc = DRA_OK;
    for (uint32_t p = 0; p < k->m.npods && rc == DRA_OK; p++) {
        const dra_pod_t *pod = k->m.pods[p];
        if (pod->node_name)
            continue; /* already bound (a bound member counts in its group's cycle) */
        int64_t reps = pod->replicas > 0 ? pod->replicas : 1;
        uint32_t gi;
        const char *why;
        dra_mg_pod_t fate = dra_mgroups_pod(g.mg, p, &gi, &why);
        if (fate == DRA_MG_WAITS) {
            for (int64_t r = 0; r < reps && rc == DRA_OK; r++) {
                char nm[600];
                snprintf(nm, sizeof nm, reps > 1 ? "%s-%lld" : "%s", nz(pod->name), (long long)r);
                rc = gpod_add(&g, dra_arena_strdup(&k->out_arena, nm), NULL, why);
            }
        } else if (fate == DRA_MG_MEMBER) {
            if (!g.ran[gi])
                rc = gt_group(&g, gi);
        } else {
            for (int64_t r = 0; r < reps && rc == DRA_OK; r++)
                rc = gt_alone(&g, pod, reps, r);
        }
    }
    if (rc) {
        case_line(k, "FAIL %s (%s): %s", k->name, k->path, dra_strerror(rc));
        goto out;
    }
    gt_expect(&g);
    snprintf(k->have_msg, sizeof k->have_msg, "%u pods, %u PodGroups", g.npods, ng);
    ret = STEP_REPORT;
out:
    dra_group_ctx_free(g.cx);
    free(g.res);
    free(g.ran);
    free(g.pods);
    dra_anyalloc_free(&g.fal);
    dra_alloc_state_free(g.fst);
    dra_mgroups_free(g.mg);
    dra_diag_list_fini(&g.notes);
    return ret;
}

static void case_report(kase_t *k)
{
    if (k->f.failed) {
        case_line(k, "FAIL %s (%s): %s", k->name, k->path, k->f.why);
        k->result = DRA_CONF_FAIL;
    } else {
        if (k->o->verbose && k->why_msg[0])
            case_line(k, "PASS %s: %s; explain: %s", k->name, k->have_msg, k->why_msg);
        else if (k->o->verbose)
            case_line(k, "PASS %s: %s", k->name, k->have_msg);
        else
            case_line(k, "PASS %s", k->name);
        k->result = DRA_CONF_PASS;
    }
}

static void case_fini(kase_t *k)
{
    dra_extres_map_free(&k->xmap);
    dra_anyalloc_free(&k->al);
    dra_cel_cache_free(k->cel);
    dra_alloc_state_free(k->st);
    dra_taint_rules_fini(&k->rules);
    dra_arena_fini(&k->out_arena);
    dra_diag_list_fini(&k->errs);
    dra_arena_fini(&k->ya);
    dra_model_fini(&k->m);
    free(k->buf);
}

int dra_conf_run_case(const char *path, const dra_conf_opts_t *o, FILE *out)
{
    static step_t (*const steps[])(kase_t *) = {step_load,   step_objects, step_features,
                                                step_claims, step_state,   step_allocate,
                                                step_expect};
    kase_t *k = calloc(1, sizeof *k);
    if (!k)
        return DRA_CONF_INVALID;
    k->path = k->name = path;
    k->o = o;
    k->out = out;
    k->result = DRA_CONF_INVALID;
    k->xidx = UINT32_MAX;
    dra_diag_t d;
    dra_diag_clear(&d);
    if (dra_io_read_file(path, DRA_MANIFEST_MAX_FILE, &k->buf, &k->len, &d)) {
        fprintf(out, "FAIL %s: cannot read: %s\n", path, d.msg);
        free(k);
        return DRA_CONF_INVALID;
    }
    dra_model_init(&k->m);
    dra_arena_init(&k->ya, 0);
    dra_arena_init(&k->out_arena, 0);
    dra_diag_list_init(&k->errs);
    dra_taint_rules_init(&k->rules);
    snprintf(k->have_msg, sizeof k->have_msg, "Invalid");
    if (dra_cel_cache_new(&k->cel) == DRA_OK) {
        step_t s = STEP_NEXT;
        for (size_t i = 0; s == STEP_NEXT && i < sizeof steps / sizeof steps[0]; i++) {
            if (i == 3 && k->group) { /* a GroupTest after load, objects and features */
                s = step_group(k);
                break;
            }
            s = steps[i](k);
        }
        if (s == STEP_REPORT)
            case_report(k);
    }
    case_fini(k);
    int result = k->result;
    free(k);
    return result;
}

/* ---- the differential pair of `alloc --allocator both` --------------------------------------- */

int dra_conf_pair_new(const dra_model_t *m, const dra_alloc_features_t *f,
                      dra_alloc_state_t *ref_state, dra_cel_cache_t *cel,
                      const dra_alloc_options_t *ref_opts, bool budget_explicit, dra_conf_pair_t *p)
{
    memset(p, 0, sizeof *p);
    p->m = m;
    p->f = *f;
    p->cel = cel;
    p->ref_opts = *ref_opts;
    p->budget_explicit = budget_explicit;
    int rc = dra_anyalloc_new(DRA_ALLOC_REFERENCE, m, f, ref_state, cel, ref_opts, &p->ref);
    if (rc == DRA_OK)
        rc = dra_alloc_state_new(m, f, &p->fast_state);
    if (rc == DRA_OK)
        rc = dra_alloc_state_add_model_claims(p->fast_state);
    dra_alloc_options_t fo = *ref_opts;
    if (!budget_explicit)
        fo.max_steps = 0; /* the fast allocator's pruning is on without a budget (fast.h) */
    if (rc == DRA_OK)
        rc = dra_anyalloc_new(DRA_ALLOC_FAST, m, f, p->fast_state, cel, &fo, &p->fast);
    if (rc != DRA_OK)
        dra_conf_pair_free(p);
    return rc;
}

void dra_conf_pair_free(dra_conf_pair_t *p)
{
    dra_anyalloc_free(&p->ref);
    dra_anyalloc_free(&p->fast);
    dra_anyalloc_free(&p->fast_budget);
    dra_alloc_state_free(p->fast_state);
    p->fast_state = NULL;
}

static int64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int dra_conf_pair_allocate(dra_conf_pair_t *p, const dra_node_t *node, dra_claim_t *const *claims,
                           uint32_t n, dra_arena_t *arena, dra_alloc_outcome_t *out, bool *differs,
                           char *why, size_t len)
{
    *differs = false;
    int64_t t0 = mono_ns();
    int rc = dra_anyalloc_allocate(&p->ref, node, claims, n, arena, out);
    int64_t t1 = mono_ns();
    if (rc)
        return rc;
    rc = dra_anyalloc_allocate(&p->fast, node, claims, n, arena, &p->fo);
    int64_t t2 = mono_ns();
    if (rc)
        return rc;
    p->ref_ns += (uint64_t)(t1 - t0);
    p->fast_ns += (uint64_t)(t2 - t1);
    if (!p->budget_explicit && p->ref_opts.max_steps &&
        out->stats.allocate_one > p->ref_opts.max_steps) {
        /* the reference ran into its default budget: the fast allocator under the same one */
        if (!p->fast_budget.fast && !p->fast_budget.ref &&
            (rc = dra_anyalloc_new(DRA_ALLOC_FAST, p->m, &p->f, p->fast_state, p->cel, &p->ref_opts,
                                   &p->fast_budget)))
            return rc;
        if ((rc = dra_anyalloc_allocate(&p->fast_budget, node, claims, n, arena, &p->fo)))
            return rc;
    }
    p->decisions++;
    if (dra_conf_test_perturb)
        dra_conf_test_perturb(p->decisions, &p->fo);
    *differs = dra_alloc_outcome_differs(out, &p->fo, why, len);
    return DRA_OK;
}

int dra_conf_pair_commit_fast(dra_conf_pair_t *p)
{
    for (uint32_t i = 0; p->fo.kind == DRA_OUTCOME_ALLOCATED && i < p->fo.n; i++) {
        int rc = dra_alloc_state_commit(p->fast_state, p->fo.allocations[i]);
        if (rc)
            return rc;
    }
    return DRA_OK;
}
