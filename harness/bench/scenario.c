/* scenario.c - scenario loader and builder; see scenario.h. */
#include "scenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/intern.h"
#include "engine/engine.h"
#include "files.h"
#include "embedded.h"
#include "escape.h"
#include "manifest.h"
#include "schema.h"
#include "ydoc.h"

typedef struct sp {
    dra_scenario_t *s;
    const char *file;
    dra_diag_t *diag;
} sp_t;

static int err_at(sp_t *p, const dra_ynode_t *n, const char *path, const char *fmt, ...) DRA_PRINTF(4, 5);
static int err_at(sp_t *p, const dra_ynode_t *n, const char *path, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    dra_msg_vformat(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return dra_diag_set(p->diag, DRA_EINVAL, p->file, n ? n->line : 0, n ? n->column : 0, "%s: %s", path, msg);
}

static int check_keys(sp_t *p, const dra_ynode_t *n, const char *path, const char *const *allowed)
{
    if (!dra_ynode_is_map(n))
        return err_at(p, n, path, "expected a map, got %s", dra_ynode_kind_name(n));
    for (uint32_t i = 0; i < n->n; i++) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(*a, n->keys[i]->text) == 0;
        if (!ok) {
            char buf[300];
            size_t k = 0;
            for (const char *const *a = allowed; *a && k < sizeof buf - 40; a++)
                k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", k ? ", " : "", *a);
            return err_at(p, n->keys[i], path, "unknown field \"%s\" (expected one of: %s)", n->keys[i]->text, buf);
        }
    }
    return DRA_OK;
}

static const char *sub(char *buf, size_t len, const char *path, const char *key)
{
    if (snprintf(buf, len, "%s.%s", path, key) >= (int)len && len > 4)
        memcpy(buf + len - 4, "...", 4); /* truncated path: still a readable message */
    return buf;
}

static int get_str(sp_t *p, const dra_ynode_t *n, const char *path, const char **out)
{
    const char *v;
    int rc = dra_ynode_string(n, p->file, path, true, &v, p->diag);
    if (rc)
        return rc;
    /* names reach result files, terminals and reports: no control characters (a YAML "\e"
     * escape makes one); a description may span lines */
    bool text = strcmp(path, "metadata.description") == 0;
    for (size_t i = 0; v[i];) {
        unsigned cp;
        size_t k = dra_utf8_decode(v + i, &cp);
        if (k && (!dra_esc_is_control(cp) || (text && (cp == '\n' || cp == '\t')))) {
            i += k;
            continue;
        }
        return err_at(p, n, path, "control character U+%04X at byte %zu is not allowed",
                      k ? cp : (unsigned char)v[i], i);
    }
    if (!(*out = dra_arena_strdup(&p->s->arena, v)))
        return DRA_ENOMEM;
    return DRA_OK;
}

static int get_u64(sp_t *p, const dra_ynode_t *n, const char *path, uint64_t max, uint64_t *out)
{
    int64_t v = 0;
    int rc = dra_ynode_int64(n, p->file, path, &v, p->diag);
    if (rc)
        return rc;
    if (v < 0 || (uint64_t)v > max)
        return err_at(p, n, path, "must be between 0 and %llu, got %lld", (unsigned long long)max, (long long)v);
    *out = (uint64_t)v;
    return DRA_OK;
}

static int get_u32(sp_t *p, const dra_ynode_t *n, const char *path, uint32_t max, uint32_t *out)
{
    uint64_t v = 0;
    int rc = get_u64(p, n, path, max, &v);
    if (!rc)
        *out = (uint32_t)v;
    return rc;
}

static int get_pos_double(sp_t *p, const dra_ynode_t *n, const char *path, double *out)
{
    int rc = dra_ynode_double(n, p->file, path, out, p->diag);
    if (rc)
        return rc;
    if (!(*out > 0) || *out > 1e15)
        return err_at(p, n, path, "must be a positive number");
    return DRA_OK;
}

static int get_enum(sp_t *p, const dra_ynode_t *n, const char *path, const char *const *names, int *out)
{
    const char *v;
    int rc = dra_ynode_string(n, p->file, path, true, &v, p->diag);
    if (rc)
        return rc;
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], v) == 0) {
            *out = i;
            return DRA_OK;
        }
    char buf[200];
    size_t k = 0;
    for (int i = 0; names[i] && k < sizeof buf - 40; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", i ? ", " : "", names[i]);
    return err_at(p, n, path, "unknown value \"%s\" (expected one of: %s)", v, buf);
}

/* ---- inline templates ------------------------------------------------------------------------ */

static const char *const k_tmpl[] = {"name", "requests", "constraints", NULL};
static const char *const k_req[] = {"name", "deviceClassName", "count", "allocationMode", "selectors", "adminAccess",
                                    "capacity", NULL};
static const char *const k_cons[] = {"requests", "matchAttribute", "distinctAttribute", NULL};

/* The selectors v of request e (at path rp) of template t. */
static int inline_selectors(sp_t *p, dra_model_t *m, const dra_claim_t *t, dra_exact_request_t *e,
                            const dra_ynode_t *v, const char *rp)
{
    char b2[200];
    int rc;
    if (!dra_ynode_is_seq(v) || v->n > 32)
        return err_at(p, v, sub(b2, sizeof b2, rp, "selectors"), "expected a list of at most 32 CEL strings");
    e->selectors = dra_model_array(m, v->n, sizeof *e->selectors);
    if (!e->selectors)
        return DRA_ENOMEM;
    e->nselectors = v->n;
    for (uint32_t k = 0; k < v->n; k++) {
        const char *cel;
        snprintf(b2, sizeof b2, "%s.selectors[%u]", rp, k);
        if ((rc = dra_ynode_string(v->vals[k], p->file, b2, false, &cel, p->diag)))
            return rc;
        e->selectors[k].cel = dra_model_str(m, cel);
        e->selectors[k].pos = (dra_srcpos_t){t->pos.file, v->vals[k]->line, v->vals[k]->column};
    }
    return DRA_OK;
}

/* The capacity requests v (name: quantity) of request e at path rp. */
static int inline_capacity(sp_t *p, dra_model_t *m, dra_exact_request_t *e, const dra_ynode_t *v,
                           const char *rp)
{
    char b2[200];
    int rc;
    if (!dra_ynode_is_map(v))
        return err_at(p, v, sub(b2, sizeof b2, rp, "capacity"), "expected a map of name: quantity");
    e->has_capacity = true;
    e->cap_requests = dra_model_array(m, v->n, sizeof *e->cap_requests);
    if (!e->cap_requests)
        return DRA_ENOMEM;
    e->ncap_requests = v->n;
    for (uint32_t k = 0; k < v->n; k++) {
        const char *q;
        snprintf(b2, sizeof b2, "%s.capacity.%s", rp, v->keys[k]->text);
        if ((rc = dra_ynode_string(v->vals[k], p->file, b2, true, &q, p->diag)))
            return rc;
        dra_cap_request_t *cr = &e->cap_requests[k];
        cr->name = dra_model_str(m, v->keys[k]->text);
        cr->qname = dra_model_qname(m, NULL, v->keys[k]->text);
        dra_diag_t qd;
        if (dra_quantity_parse(q, strlen(q), &cr->value, &qd) != DRA_OK)
            return err_at(p, v->vals[k], b2, "not a quantity: %s", qd.msg);
    }
    return DRA_OK;
}

/* Request i of template t (at path) from node r: name, class, mode, count, admin access,
 * selectors and capacity. */
static int inline_request(sp_t *p, dra_model_t *m, dra_claim_t *t, uint32_t i, const dra_ynode_t *r,
                          const char *path)
{
    char b1[160], b2[200];
    int rc;
    snprintf(b1, sizeof b1, "%s.requests[%u]", path, i);
    if ((rc = check_keys(p, r, b1, k_req)))
        return rc;
    const dra_ynode_t *rn = dra_ynode_get(r, "name"), *cls = dra_ynode_get(r, "deviceClassName");
    if (!rn || !cls)
        return err_at(p, r, b1, "name and deviceClassName are required");
    const char *rname, *cname;
    if ((rc = dra_ynode_string(rn, p->file, sub(b2, sizeof b2, b1, "name"), false, &rname, p->diag)) ||
        (rc = dra_ynode_string(cls, p->file, sub(b2, sizeof b2, b1, "deviceClassName"), false, &cname, p->diag)))
        return rc;
    dra_exact_request_t *e = dra_model_array(m, 1, sizeof *e);
    if (!e)
        return DRA_ENOMEM;
    t->requests[i].name = dra_model_str(m, rname);
    t->requests[i].exactly = e;
    t->requests[i].pos = (dra_srcpos_t){t->pos.file, r->line, r->column};
    e->name = t->requests[i].name;
    e->class_name = dra_model_str(m, cname);
    e->pos = t->requests[i].pos;
    e->mode = DRA_MODE_EXACT_COUNT;
    const dra_ynode_t *v;
    if ((v = dra_ynode_get(r, "allocationMode"))) {
        static const char *const modes[] = {"ExactCount", "All", NULL};
        int mode;
        if ((rc = get_enum(p, v, sub(b2, sizeof b2, b1, "allocationMode"), modes, &mode)))
            return rc;
        e->mode = mode ? DRA_MODE_ALL : DRA_MODE_EXACT_COUNT;
        e->mode_raw = dra_model_str(m, modes[mode]);
    }
    if ((v = dra_ynode_get(r, "count"))) {
        uint64_t cnt = 0;
        if (e->mode == DRA_MODE_ALL)
            return err_at(p, v, sub(b2, sizeof b2, b1, "count"), "must not be set with allocationMode All");
        if ((rc = get_u64(p, v, sub(b2, sizeof b2, b1, "count"), 32, &cnt)))
            return rc;
        if (cnt == 0)
            return err_at(p, v, b2, "must be at least 1");
        e->has_count = true;
        e->count = (int64_t)cnt;
    } else if (e->mode == DRA_MODE_EXACT_COUNT) {
        e->count = 1;
    }
    if ((v = dra_ynode_get(r, "adminAccess"))) {
        if ((rc = dra_ynode_bool(v, p->file, sub(b2, sizeof b2, b1, "adminAccess"), &e->admin_access, p->diag)))
            return rc;
        e->has_admin_access = true;
    }
    if ((v = dra_ynode_get(r, "selectors")) && (rc = inline_selectors(p, m, t, e, v, b1)))
        return rc;
    if ((v = dra_ynode_get(r, "capacity")) && (rc = inline_capacity(p, m, e, v, b1)))
        return rc;
    return DRA_OK;
}

/* Constraint i of template t (at path) from node c: one attribute to match or keep distinct,
 * over the listed requests (which must exist). */
static int inline_constraint(sp_t *p, dra_model_t *m, dra_claim_t *t, uint32_t i, const dra_ynode_t *c,
                             const char *path)
{
    char b1[160];
    int rc;
    snprintf(b1, sizeof b1, "%s.constraints[%u]", path, i);
    if ((rc = check_keys(p, c, b1, k_cons)))
        return rc;
    const dra_ynode_t *ma = dra_ynode_get(c, "matchAttribute"), *da = dra_ynode_get(c, "distinctAttribute");
    if (!ma == !da)
        return err_at(p, c, b1, "exactly one of matchAttribute and distinctAttribute is required");
    const char *attr;
    if ((rc = dra_ynode_string(ma ? ma : da, p->file, b1, false, &attr, p->diag)))
        return rc;
    if (!strchr(attr, '/') || !dra_name_is_qualified(attr))
        return err_at(p, ma ? ma : da, b1, "attribute \"%s\" must be fully qualified (domain/name)", attr);
    dra_constraint_t *k = &t->constraints[i];
    k->pos = (dra_srcpos_t){t->pos.file, c->line, c->column};
    if (ma)
        k->match_attribute = dra_model_str(m, attr);
    else
        k->distinct_attribute = dra_model_str(m, attr);
    const dra_ynode_t *rq = dra_ynode_get(c, "requests");
    if (!rq)
        return DRA_OK;
    if (!dra_ynode_is_seq(rq))
        return err_at(p, rq, b1, "requests: expected a list of request names");
    k->requests = dra_model_array(m, rq->n, sizeof *k->requests);
    if (!k->requests && rq->n)
        return DRA_ENOMEM;
    k->nrequests = rq->n;
    for (uint32_t j = 0; j < rq->n; j++) {
        const char *rn;
        if ((rc = dra_ynode_string(rq->vals[j], p->file, b1, false, &rn, p->diag)))
            return rc;
        bool found = false;
        for (uint32_t q = 0; q < t->nrequests; q++)
            found |= strcmp(t->requests[q].name, rn) == 0;
        if (!found)
            return err_at(p, rq->vals[j], b1, "unknown request \"%s\"", rn);
        k->requests[j] = dra_model_str(m, rn);
    }
    return DRA_OK;
}

/* Build an inline template into m (also used at load time, into a scratch model, to validate). */
static int build_inline(sp_t *p, dra_model_t *m, const dra_ynode_t *n, const char *path, dra_claim_t **out)
{
    char b1[160];
    int rc = check_keys(p, n, path, k_tmpl);
    if (rc)
        return rc;
    const dra_ynode_t *nm = dra_ynode_get(n, "name"), *reqs = dra_ynode_get(n, "requests");
    const dra_ynode_t *cons = dra_ynode_get(n, "constraints");
    const char *name;
    if (!nm)
        return err_at(p, n, path, "missing field \"name\"");
    if ((rc = dra_ynode_string(nm, p->file, sub(b1, sizeof b1, path, "name"), false, &name, p->diag)))
        return rc;
    if (!dra_ynode_is_seq(reqs) || reqs->n == 0 || reqs->n > 32)
        return err_at(p, reqs ? reqs : n, sub(b1, sizeof b1, path, "requests"), "expected a list of 1 to 32 requests");
    if (dra_model_find_template(m, "default", name))
        return err_at(p, nm, sub(b1, sizeof b1, path, "name"), "template \"%s\" defined twice", name);
    dra_claim_t *t = dra_model_add_template(m);
    if (!t)
        return DRA_ENOMEM;
    t->namespace_ = dra_model_str(m, "default");
    t->name = dra_model_str(m, name);
    t->api_version = dra_model_str(m, "resource.k8s.io/v1");
    t->pos = (dra_srcpos_t){dra_model_str(m, p->file), n->line, n->column};
    t->requests = dra_model_array(m, reqs->n, sizeof *t->requests);
    if (!t->requests)
        return DRA_ENOMEM;
    t->nrequests = reqs->n;
    for (uint32_t i = 0; i < reqs->n; i++)
        if ((rc = inline_request(p, m, t, i, reqs->vals[i], path)))
            return rc;
    if (cons) {
        if (!dra_ynode_is_seq(cons) || cons->n > 32)
            return err_at(p, cons, sub(b1, sizeof b1, path, "constraints"), "expected a list of at most 32 constraints");
        t->constraints = dra_model_array(m, cons->n, sizeof *t->constraints);
        if (!t->constraints && cons->n)
            return DRA_ENOMEM;
        t->nconstraints = cons->n;
        for (uint32_t i = 0; i < cons->n; i++)
            if ((rc = inline_constraint(p, m, t, i, cons->vals[i], path)))
                return rc;
    }
    *out = t;
    return DRA_OK;
}

/* ---- sections ---------------------------------------------------------------------------------- */

static const char *const k_top[] = {"apiVersion", "kind", "metadata", "spec", NULL};
static const char *const k_meta[] = {"name", "description", NULL};
static const char *const k_spec[] = {"seed", "release", "features", "cluster", "workload", "placement", "run", NULL};
static const char *const k_cluster[] = {"nodes", "manifests", NULL};
static const char *const k_group[] = {"profile", "count", "name", "params", NULL};
static const char *const k_params[] = {"gpus", "nics", "devices", "rackSize", "rackLabel", "channels", "partitions", "productName",
                                       "memory", "driverVersion", "migLayout", "counterLayout", "scope", "selector",
                                       "labels", NULL};
static const char *const k_selector[] = {"key", "value", NULL};
static const char *const k_workload[] = {"mode", "count", "stopAfter", "rate", "lifetime", "mix", "deviceTaints", NULL};
static const char *const k_taints[] = {"every", "hold", "effect", "key", "value", NULL};
static const char *const k_life[] = {"distribution", "mean", "value", "min", "max", NULL};
static const char *const k_mix[] = {"shape", "template", "weight", "count", "migProfile", "sameParent", "memory",
                                    "class", "constraint", "share", "name", "requests", "expect", "group", NULL};
static const char *const k_mixgroup[] = {"pods", "policy", "minCount", "topologyKey", "claims", NULL};
static const char *const k_gclaim[] = {"name", "shape", "template", "count", "migProfile", "sameParent",
                                       "memory", "class", "constraint", NULL};
static const char *const k_requests[] = {"cpu", "memory", NULL};
static const char *const k_run[] = {"warmup", "repetitions", "invariants", "sampleRate", NULL};

static int load_params(sp_t *p, const dra_ynode_t *n, const char *path, dra_gen_group_t *g)
{
    char b[200];
    int rc = check_keys(p, n, path, k_params);
    if (rc)
        return rc;
    dra_gen_params_t *pp = &g->params;
    for (uint32_t i = 0; i < n->n && !rc; i++) {
        const char *k = n->keys[i]->text;
        const dra_ynode_t *v = n->vals[i];
        sub(b, sizeof b, path, k);
        if (!strcmp(k, "gpus"))
            rc = get_u32(p, v, b, 64, &pp->gpus);
        else if (!strcmp(k, "nics"))
            rc = get_u32(p, v, b, 64, &pp->nics);
        else if (!strcmp(k, "devices"))
            rc = get_u32(p, v, b, 4096, &pp->devices);
        else if (!strcmp(k, "rackSize"))
            rc = get_u32(p, v, b, 1u << 20, &pp->rack_size);
        else if (!strcmp(k, "rackLabel")) {
            if (!(rc = get_str(p, v, b, &pp->rack_label)) && !dra_name_is_label_key(pp->rack_label))
                return err_at(p, v, b, "\"%s\" is not a node label key", pp->rack_label);
        }
        else if (!strcmp(k, "channels"))
            rc = get_u32(p, v, b, 127, &pp->channels);
        else if (!strcmp(k, "productName"))
            rc = get_str(p, v, b, &pp->product_name);
        else if (!strcmp(k, "memory"))
            rc = get_str(p, v, b, &pp->memory);
        else if (!strcmp(k, "driverVersion"))
            rc = get_str(p, v, b, &pp->driver_version);
        else if (!strcmp(k, "partitions")) {
            static const char *const parts[] = {"spx", "cpx", NULL};
            int e;
            if (!(rc = get_enum(p, v, b, parts, &e)))
                pp->cpx = e == 1;
        } else if (!strcmp(k, "migLayout")) {
            static const char *const l[] = {"all-1g", "half-balanced", "mixed", NULL};
            int e;
            if (!(rc = get_enum(p, v, b, l, &e)))
                pp->mig_layout = (dra_gen_mig_layout_t)e;
        } else if (!strcmp(k, "counterLayout")) {
            static const char *const l[] = {"1.35", "1.34", NULL};
            int e;
            if (!(rc = get_enum(p, v, b, l, &e)))
                pp->counter_layout = (dra_gen_counter_layout_t)e;
        } else if (!strcmp(k, "scope")) {
            static const char *const l[] = {"allNodes", "nodeSelector", "perValue", NULL};
            int e;
            if (!(rc = get_enum(p, v, b, l, &e)))
                pp->scope = (dra_gen_scope_t)e;
        } else if (!strcmp(k, "selector")) {
            if ((rc = check_keys(p, v, b, k_selector)))
                break;
            const dra_ynode_t *sk = dra_ynode_get(v, "key"), *sv = dra_ynode_get(v, "value");
            if (!sk)
                return err_at(p, v, b, "key is required");
            if (!(rc = get_str(p, sk, b, &pp->selector_key)) && sv)
                rc = get_str(p, sv, b, &pp->selector_value);
        } else if (!strcmp(k, "labels")) {
            if (!dra_ynode_is_map(v))
                return err_at(p, v, b, "expected a map of label: value");
            dra_label_t *l = dra_arena_calloc(&p->s->arena, v->n ? v->n : 1, sizeof *l, 8);
            if (!l)
                return DRA_ENOMEM;
            for (uint32_t j = 0; j < v->n && !rc; j++) {
                l[j].key = dra_arena_strdup(&p->s->arena, v->keys[j]->text);
                rc = get_str(p, v->vals[j], b, &l[j].value);
            }
            pp->labels = l;
            pp->nlabels = v->n;
        }
    }
    if (!rc && g->profile == DRA_GEN_NET_POOL && pp->scope == DRA_GEN_SCOPE_NODE_SELECTOR &&
        (!pp->selector_key || !pp->selector_value))
        return err_at(p, n, path, "scope nodeSelector needs selector {key, value}");
    if (!rc && g->profile == DRA_GEN_NET_POOL && pp->scope == DRA_GEN_SCOPE_PER_VALUE && !pp->selector_key)
        return err_at(p, n, path, "scope perValue needs selector {key} (the node label whose values get pools)");
    if (!rc && pp->nics > pp->gpus)
        return err_at(p, n, path, "nics (%u) must not exceed gpus (%u)", pp->nics, pp->gpus);
    return rc;
}

static int load_cluster(sp_t *p, const dra_ynode_t *n)
{
    char b[200];
    dra_scenario_t *s = p->s;
    int rc = check_keys(p, n, "spec.cluster", k_cluster);
    if (rc)
        return rc;
    const dra_ynode_t *nodes = dra_ynode_get(n, "nodes"), *man = dra_ynode_get(n, "manifests");
    /* a cluster of manifests only (a real cluster's kubectl dump) needs no node groups */
    bool manifests_only = !nodes && dra_ynode_is_seq(man) && man->n > 0;
    if (!manifests_only && (!dra_ynode_is_seq(nodes) || nodes->n == 0))
        return err_at(p, nodes ? nodes : n, "spec.cluster.nodes",
                      "expected a non-empty list of node groups (or only manifests)");
    uint32_t ngroups = manifests_only ? 0 : nodes->n;
    s->groups = dra_arena_calloc(&s->arena, ngroups ? ngroups : 1, sizeof *s->groups, 8);
    if (!s->groups)
        return DRA_ENOMEM;
    s->ngroups = ngroups;
    uint64_t total = 0;
    for (uint32_t i = 0; i < ngroups; i++) {
        const dra_ynode_t *g = nodes->vals[i];
        char path[64];
        snprintf(path, sizeof path, "spec.cluster.nodes[%u]", i);
        if ((rc = check_keys(p, g, path, k_group)))
            return rc;
        const dra_ynode_t *pr = dra_ynode_get(g, "profile"), *cnt = dra_ynode_get(g, "count");
        if (!pr || !cnt)
            return err_at(p, g, path, "profile and count are required");
        const char *pname;
        if ((rc = dra_ynode_string(pr, p->file, sub(b, sizeof b, path, "profile"), false, &pname, p->diag)))
            return rc;
        dra_gen_group_t *gr = &s->groups[i];
        if (dra_gen_profile_find(pname, &gr->profile) != DRA_OK)
            return err_at(p, pr, b, "unknown profile \"%s\" (see drabench gen --list)", pname);
        dra_gen_params_default(gr->profile, &gr->params);
        if ((rc = get_u32(p, cnt, sub(b, sizeof b, path, "count"), 1000000, &gr->count)))
            return rc;
        total += gr->count;
        const dra_ynode_t *v;
        if ((v = dra_ynode_get(g, "name")) && (rc = get_str(p, v, sub(b, sizeof b, path, "name"), &gr->name)))
            return rc;
        /* node names are "<name>-<index>" and slice names start with them: a lowercase RFC 1123
         * label short enough that every derived name is a valid DNS subdomain */
        if (v && (strlen(gr->name) > 40 || !dra_name_is_dns_label(gr->name)))
            return err_at(p, v, b, "\"%s\" must be a DNS label (lowercase letters, digits, '-') of at "
                                   "most 40 characters: node and slice names are made from it",
                          gr->name);
        if ((v = dra_ynode_get(g, "params")) && (rc = load_params(p, v, sub(b, sizeof b, path, "params"), gr)))
            return rc;
    }
    if (total > 1000000)
        return err_at(p, nodes, "spec.cluster.nodes", "more than 1,000,000 nodes in total");
    if (man && !dra_ynode_is_seq(man))
        return err_at(p, man, "spec.cluster.manifests", "expected a list of paths");
    if (man) {
        if (!dra_ynode_is_seq(man))
            return err_at(p, man, "spec.cluster.manifests", "expected a list of paths");
        s->manifests = dra_arena_calloc(&s->arena, man->n ? man->n : 1, sizeof *s->manifests, 8);
        if (!s->manifests)
            return DRA_ENOMEM;
        const char *slash = strrchr(p->file, '/');
        for (uint32_t i = 0; i < man->n; i++) {
            const char *path;
            if ((rc = dra_ynode_string(man->vals[i], p->file, "spec.cluster.manifests", false, &path, p->diag)))
                return rc;
            char full[4096];
            if (path[0] != '/' && slash && strncmp(p->file, "<builtin>", 9) != 0)
                snprintf(full, sizeof full, "%.*s/%s", (int)(slash - p->file), p->file, path);
            else
                snprintf(full, sizeof full, "%s", path);
            if (!(s->manifests[i] = dra_arena_strdup(&s->arena, full)))
                return DRA_ENOMEM;
        }
        s->nmanifests = man->n;
    }
    return DRA_OK;
}

/* A mix entry's pod requests {cpu, memory} (quantities; absent = 0 = no request). */
static int load_requests(sp_t *p, const dra_ynode_t *n, const char *path, dra_scenario_mix_t *mx)
{
    char b[220];
    int rc = check_keys(p, n, path, k_requests);
    if (rc)
        return rc;
    if (mx->shape.share > 0)
        return err_at(p, n, path, "pods sharing a claim (share) cannot request cpu or memory");
    for (int i = 0; i < 2; i++) {
        const char *key = k_requests[i], *text;
        const dra_ynode_t *v = dra_ynode_get(n, key);
        if (!v)
            continue;
        sub(b, sizeof b, path, key);
        if ((rc = get_str(p, v, b, &text)))
            return rc;
        int64_t units;
        if (dra_engine_quantity_units(text, i == 0 ? -3 : 0, &units) != DRA_OK)
            return err_at(p, v, b, "\"%s\" is not a non-negative quantity (like %s)", text,
                          i == 0 ? "500m or 2" : "512Mi or 4Gi");
        if (i == 0)
            mx->cpu_milli = units;
        else
            mx->memory_bytes = units;
    }
    return DRA_OK;
}


/* An inline template is a ResourceClaimTemplate: the scratch model that holds the templates built
 * so far is checked by the manifest validator, so a template the API server would reject (a class
 * name that is not a DNS subdomain, a bad selector list, ...) is a scenario error at its field, not
 * a cluster that later fails to validate. */
static int validate_inline(sp_t *p, const dra_model_t *scratch, const dra_ynode_t *tm,
                           const char *path)
{
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    int vrc = dra_manifest_validate(scratch, &errs);
    int rc = DRA_OK;
    if (errs.count) {
        const dra_diag_t *d = &errs.items[0];
        rc = dra_diag_set(p->diag, DRA_EINVAL, p->file, d->line ? d->line : tm->line,
                          d->line ? d->column : tm->column, "%s: %s", path, d->msg);
    } else if (vrc == DRA_ENOMEM) {
        rc = DRA_ENOMEM;
    }
    dra_diag_list_fini(&errs);
    return rc;
}

/* The claim part of a mix entry or of a group claim: a shape with its parameters, or an inline
 * template. `entry_keys` are the keys that may stand beside an inline template. group_claim: the
 * key "name" is the group claim's name, not the template's. */
static int load_claim(sp_t *p, const dra_ynode_t *e, const char *path, dra_shape_spec_t *ss,
                      const void **inline_node, dra_model_t *scratch, const char *const *entry_keys,
                      bool group_claim)
{
    char b[200];
    int rc;
    const dra_ynode_t *sh = dra_ynode_get(e, "shape"), *tm = dra_ynode_get(e, "template"), *v;
    if (!sh == !tm)
        return err_at(p, e, path, "exactly one of shape and template is required");
    if (tm) {
        for (uint32_t i = 0; i < e->n; i++) {
            bool ok = false;
            for (const char *const *k = entry_keys; *k && !ok; k++)
                ok = strcmp(e->keys[i]->text, *k) == 0;
            if (!ok)
                return err_at(p, e->keys[i], path, "field \"%s\" does not apply to an inline template",
                              e->keys[i]->text);
        }
        ss->kind = DRA_SHAPE_INLINE;
        *inline_node = tm;
        dra_claim_t *t;
        if ((rc = build_inline(p, scratch, tm, sub(b, sizeof b, path, "template"), &t)) ||
            (rc = validate_inline(p, scratch, tm, b)))
            return rc;
        ss->name = dra_arena_strdup(&p->s->arena, t->name);
    } else {
        const char *name, *mig;
        if ((rc = dra_ynode_string(sh, p->file, sub(b, sizeof b, path, "shape"), false, &name, p->diag)))
            return rc;
        if (dra_shape_find(name, &ss->kind, &mig) != DRA_OK || ss->kind == DRA_SHAPE_INLINE)
            return err_at(p, sh, b, "unknown shape \"%s\" (see drabench gen --list)", name);
        if (mig && !(ss->mig_profile = dra_arena_strdup(&p->s->arena, mig)))
            return DRA_ENOMEM;
    }
    rc = DRA_OK;
    for (uint32_t i = 0; i < e->n && !rc; i++) {
        const char *k = e->keys[i]->text;
        v = e->vals[i];
        sub(b, sizeof b, path, k);
        if (!strcmp(k, "count"))
            rc = get_u32(p, v, b, 32, &ss->count);
        else if (!strcmp(k, "migProfile"))
            rc = get_str(p, v, b, &ss->mig_profile);
        else if (!strcmp(k, "sameParent"))
            rc = dra_ynode_bool(v, p->file, b, &ss->same_parent, p->diag);
        else if (!strcmp(k, "memory"))
            rc = get_str(p, v, b, &ss->memory);
        else if (!strcmp(k, "class"))
            rc = get_str(p, v, b, &ss->class_name);
        else if (!strcmp(k, "constraint"))
            rc = get_str(p, v, b, &ss->constraint);
        else if (!strcmp(k, "share"))
            rc = get_u32(p, v, b, 256, &ss->share);
        else if (!strcmp(k, "name") && !group_claim)
            rc = get_str(p, v, b, &ss->name);
    }
    if (rc)
        return rc;
    /* the entry's name becomes a ResourceClaimTemplate's name and the result file's metric and
     * histogram names: what every reader of those takes, refused here with the rule */
    if (ss->name) {
        const dra_ynode_t *nn = tm ? dra_ynode_get(tm, "name") : dra_ynode_get(e, "name");
        const char *why = dra_rs_shape_name_problem(ss->name);
        if (!why && !dra_name_is_dns_subdomain(ss->name))
            why = "must be a DNS subdomain (lowercase letters, digits, '-' and '.'): it names a "
                  "ResourceClaimTemplate";
        if (why)
            return err_at(p, nn ? nn : e, sub(b, sizeof b, path, tm ? "template.name" : "name"),
                          "\"%s\" %s", ss->name, why);
    }
    if (ss->kind == DRA_SHAPE_SHARED && ss->share == 0)
        ss->share = 2;
    if (ss->kind != DRA_SHAPE_INLINE) { /* validate parameters by building into the scratch model */
        dra_diag_t d;
        if (dra_shape_build(scratch, ss, NULL, &d) != DRA_OK)
            return err_at(p, e, path, "%s", d.msg);
    }
    return DRA_OK;
}

/* mix[].group: the entry's arrivals are PodGroups of `pods` pods (scenario.h). */
static int load_group(sp_t *p, const dra_ynode_t *n, const char *path, dra_scenario_mix_t *mx,
                      dra_model_t *scratch)
{
    char b[220];
    dra_scenario_group_t *g = &mx->group;
    int rc = check_keys(p, n, path, k_mixgroup);
    if (rc)
        return rc;
    g->line = n->line;
    g->column = n->column;
    const dra_ynode_t *v = dra_ynode_get(n, "pods");
    if (!v)
        return err_at(p, n, path, "missing field \"pods\" (pods per group)");
    if ((rc = get_u32(p, v, sub(b, sizeof b, path, "pods"), DRA_GROUP_MAX_MEMBERS, &g->pods)))
        return rc;
    if (g->pods == 0)
        return err_at(p, v, b, "a group has at least one pod");
    static const char *const pols[] = {"basic", "gang", NULL};
    int pol = 1;
    if ((v = dra_ynode_get(n, "policy")) && (rc = get_enum(p, v, sub(b, sizeof b, path, "policy"), pols, &pol)))
        return rc;
    g->gang = pol == 1;
    g->min_count = g->gang ? g->pods : 1;
    if ((v = dra_ynode_get(n, "minCount"))) {
        sub(b, sizeof b, path, "minCount");
        if (!g->gang)
            return err_at(p, v, b, "minCount belongs to the gang policy (policy: gang)");
        if ((rc = get_u32(p, v, b, DRA_GROUP_MAX_MEMBERS, &g->min_count)))
            return rc;
        if (g->min_count == 0)
            return err_at(p, v, b, "must be at least 1 (upstream: minimum=1)");
        if (g->min_count > g->pods)
            return err_at(p, v, b,
                          "minCount %u is larger than the group (%u pods): the gang would wait "
                          "for pods that never come (PreEnqueue) and never be tried",
                          g->min_count, g->pods);
    }
    if ((v = dra_ynode_get(n, "topologyKey"))) {
        if ((rc = get_str(p, v, sub(b, sizeof b, path, "topologyKey"), &g->topology_key)))
            return rc;
        if (!dra_name_is_label_key(g->topology_key))
            return err_at(p, v, b, "\"%s\" is not a node label key", g->topology_key);
    }
    if ((v = dra_ynode_get(n, "claims"))) {
        sub(b, sizeof b, path, "claims");
        if (!dra_ynode_is_seq(v) || v->n == 0 || v->n > DRA_GROUP_MAX_GCLAIMS)
            return err_at(p, v, b, "expected a list of 1 to %d group claims (MaxPodGroupResourceClaims)",
                          DRA_GROUP_MAX_GCLAIMS);
        g->claims = dra_arena_calloc(&p->s->arena, v->n, sizeof *g->claims, 8);
        if (!g->claims)
            return DRA_ENOMEM;
        g->nclaims = v->n;
        static const char *const inline_keys[] = {"template", "name", NULL};
        for (uint32_t i = 0; i < v->n; i++) {
            char cp[240];
            snprintf(cp, sizeof cp, "%s[%u]", b, i);
            const dra_ynode_t *e = v->vals[i];
            dra_scenario_gclaim_t *gc = &g->claims[i];
            if ((rc = check_keys(p, e, cp, k_gclaim)))
                return rc;
            const dra_ynode_t *nm = dra_ynode_get(e, "name");
            char np[260];
            if (!nm)
                return err_at(p, e, cp, "missing field \"name\" (the PodGroup resourceClaims entry)");
            if ((rc = get_str(p, nm, sub(np, sizeof np, cp, "name"), &gc->name)))
                return rc;
            if (!dra_name_is_dns_label(gc->name))
                return err_at(p, nm, np, "\"%s\" is not a DNS label", gc->name);
            for (uint32_t k = 0; k < i; k++)
                if (strcmp(g->claims[k].name, gc->name) == 0)
                    return err_at(p, nm, np, "duplicate group claim name \"%s\"", gc->name);
            if ((rc = load_claim(p, e, cp, &gc->shape, &gc->inline_node, scratch, inline_keys, true)))
                return rc;
            if (gc->shape.kind == DRA_SHAPE_SHARED)
                return err_at(p, e, cp, "a group claim is shared by the group's pods already; the "
                                        "shared shape does not apply");
        }
    }
    return DRA_OK;
}

static int load_mix_entry(sp_t *p, const dra_ynode_t *e, const char *path, dra_scenario_mix_t *mx,
                          dra_model_t *scratch)
{
    char b[200];
    int rc = check_keys(p, e, path, k_mix);
    if (rc)
        return rc;
    const dra_ynode_t *v;
    mx->weight = 1;
    if ((v = dra_ynode_get(e, "weight")) && (rc = get_pos_double(p, v, sub(b, sizeof b, path, "weight"), &mx->weight)))
        return rc;
    mx->node = e;
    if ((v = dra_ynode_get(e, "expect"))) {
        static const char *const ex[] = {"unsatisfiable", NULL};
        int x;
        if ((rc = get_enum(p, v, sub(b, sizeof b, path, "expect"), ex, &x)))
            return rc;
        mx->expect_unsat = true;
    }
    static const char *const inline_keys[] = {"template", "weight", "share", "requests", "expect",
                                              "group", NULL};
    if ((rc = load_claim(p, e, path, &mx->shape, &mx->inline_node, scratch, inline_keys, false)))
        return rc;
    if ((v = dra_ynode_get(e, "requests")) && (rc = load_requests(p, v, sub(b, sizeof b, path, "requests"), mx)))
        return rc;
    if ((v = dra_ynode_get(e, "group"))) {
        if (mx->shape.share > 0)
            return err_at(p, v, sub(b, sizeof b, path, "group"),
                          "pods of a group cannot share a claim with other arrivals (share); "
                          "group claims are shared by the group's pods");
        if ((rc = load_group(p, v, sub(b, sizeof b, path, "group"), mx, scratch)))
            return rc;
    }
    return DRA_OK;
}

/* spec.workload.deviceTaints: device health events (scenario.h). */
static int load_taints(sp_t *p, const dra_ynode_t *n)
{
    static const char *const path = "spec.workload.deviceTaints";
    dra_scenario_taints_t *t = &p->s->taints;
    int rc = check_keys(p, n, path, k_taints);
    if (rc)
        return rc;
    const dra_ynode_t *v;
    if (!(v = dra_ynode_get(n, "every")))
        return err_at(p, n, path, "missing field \"every\"");
    if ((rc = get_u64(p, v, "spec.workload.deviceTaints.every", DRA_SCENARIO_COUNT_MAX, &t->every)))
        return rc;
    if (t->every == 0)
        return err_at(p, v, "spec.workload.deviceTaints.every", "must be at least 1");
    if (!(v = dra_ynode_get(n, "hold")))
        return err_at(p, n, path, "missing field \"hold\"");
    if ((rc = get_u64(p, v, "spec.workload.deviceTaints.hold", DRA_SCENARIO_COUNT_MAX, &t->hold)))
        return rc;
    if (t->hold == 0)
        return err_at(p, v, "spec.workload.deviceTaints.hold", "must be at least 1");
    if (!(v = dra_ynode_get(n, "key")))
        return err_at(p, n, path, "missing field \"key\"");
    if ((rc = get_str(p, v, "spec.workload.deviceTaints.key", &t->key)))
        return rc;
    /* as a device taint's in the API (the manifest validator's rules) */
    if (!dra_name_is_label_key(t->key))
        return err_at(p, v, "spec.workload.deviceTaints.key",
                      "\"%s\" is not a label key ([prefix/]name: a DNS subdomain prefix, a name "
                      "of at most 63 of [A-Za-z0-9-_.])", t->key);
    if ((v = dra_ynode_get(n, "value")) &&
        (rc = get_str(p, v, "spec.workload.deviceTaints.value", &t->value)))
        return rc;
    if (t->value && !dra_name_is_label_value(t->value))
        return err_at(p, v, "spec.workload.deviceTaints.value",
                      "\"%s\" is not a label value (at most 63 of [A-Za-z0-9-_.], beginning and "
                      "ending with a letter or digit)", t->value);
    static const char *const effects[] = {"NoSchedule", "NoExecute", "None", NULL};
    int e = 0;
    if ((v = dra_ynode_get(n, "effect")) &&
        (rc = get_enum(p, v, "spec.workload.deviceTaints.effect", effects, &e)))
        return rc;
    t->effect = e == 0 ? DRA_EFFECT_NO_SCHEDULE : e == 1 ? DRA_EFFECT_NO_EXECUTE : DRA_EFFECT_NONE;
    t->effect_raw = effects[e];
    return DRA_OK;
}

static int load_workload(sp_t *p, const dra_ynode_t *n)
{
    char b[200];
    dra_scenario_t *s = p->s;
    int rc = check_keys(p, n, "spec.workload", k_workload);
    if (rc)
        return rc;
    const dra_ynode_t *v;
    static const char *const modes[] = {"fill", "steady", NULL};
    int mode = 0;
    if ((v = dra_ynode_get(n, "mode")) && (rc = get_enum(p, v, "spec.workload.mode", modes, &mode)))
        return rc;
    s->mode = (dra_wl_mode_t)mode;
    if (!(v = dra_ynode_get(n, "count")))
        return err_at(p, n, "spec.workload", "missing field \"count\"");
    if ((rc = get_u64(p, v, "spec.workload.count", DRA_SCENARIO_COUNT_MAX, &s->count)))
        return rc;
    if ((v = dra_ynode_get(n, "stopAfter")) && (rc = get_u64(p, v, "spec.workload.stopAfter", DRA_SCENARIO_COUNT_MAX, &s->stop_after)))
        return rc;
    if ((v = dra_ynode_get(n, "rate")) && (rc = get_pos_double(p, v, "spec.workload.rate", &s->rate)))
        return rc;
    if ((v = dra_ynode_get(n, "lifetime"))) {
        if ((rc = check_keys(p, v, "spec.workload.lifetime", k_life)))
            return rc;
        static const char *const dists[] = {"constant", "exponential", "uniform", NULL};
        int d = 1;
        const dra_ynode_t *x;
        if ((x = dra_ynode_get(v, "distribution")) && (rc = get_enum(p, x, "spec.workload.lifetime.distribution", dists, &d)))
            return rc;
        s->lifetime.kind = (dra_dist_kind_t)d;
        const char *need = d == 0 ? "value" : d == 1 ? "mean" : "min";
        if (!(x = dra_ynode_get(v, need)))
            return err_at(p, v, "spec.workload.lifetime", "distribution %s needs \"%s\"", dists[d], need);
        if ((rc = get_pos_double(p, x, sub(b, sizeof b, "spec.workload.lifetime", need), &s->lifetime.a)))
            return rc;
        if (d == 2) {
            if (!(x = dra_ynode_get(v, "max")))
                return err_at(p, v, "spec.workload.lifetime", "distribution uniform needs \"max\"");
            if ((rc = get_pos_double(p, x, "spec.workload.lifetime.max", &s->lifetime.b)))
                return rc;
            if (s->lifetime.b < s->lifetime.a)
                return err_at(p, x, "spec.workload.lifetime.max", "must not be below min");
        }
    }
    if (s->mode == DRA_WL_STEADY && (!(s->rate > 0) || !(s->lifetime.a > 0)))
        return err_at(p, n, "spec.workload", "mode steady needs rate and lifetime");
    if ((v = dra_ynode_get(n, "deviceTaints")) && (rc = load_taints(p, v)))
        return rc;
    const dra_ynode_t *mix = dra_ynode_get(n, "mix");
    if (!dra_ynode_is_seq(mix) || mix->n == 0 || mix->n > 256)
        return err_at(p, mix ? mix : n, "spec.workload.mix", "expected a list of 1 to 256 entries");
    s->mix = dra_arena_calloc(&s->arena, mix->n, sizeof *s->mix, 8);
    if (!s->mix)
        return DRA_ENOMEM;
    s->nmix = mix->n;
    dra_model_t scratch;
    dra_model_init(&scratch);
    for (uint32_t i = 0; i < mix->n && !rc; i++) {
        char path[64];
        snprintf(path, sizeof path, "spec.workload.mix[%u]", i);
        rc = load_mix_entry(p, mix->vals[i], path, &s->mix[i], &scratch);
    }
    dra_model_fini(&scratch);
    return rc;
}

static int load_run(sp_t *p, const dra_ynode_t *n)
{
    dra_scenario_t *s = p->s;
    int rc = check_keys(p, n, "spec.run", k_run);
    const dra_ynode_t *v;
    if (rc)
        return rc;
    if ((v = dra_ynode_get(n, "warmup")) && (rc = get_u64(p, v, "spec.run.warmup", DRA_SCENARIO_COUNT_MAX, &s->warmup)))
        return rc;
    if ((v = dra_ynode_get(n, "repetitions")) && (rc = get_u32(p, v, "spec.run.repetitions", 1000, &s->repetitions)))
        return rc;
    if (s->repetitions == 0)
        return err_at(p, v, "spec.run.repetitions", "must be at least 1");
    if ((v = dra_ynode_get(n, "invariants"))) {
        static const char *const im[] = {"all", "sampled", "off", NULL};
        int e;
        if ((rc = get_enum(p, v, "spec.run.invariants", im, &e)))
            return rc;
        s->invariants = (dra_inv_mode_t)e;
    }
    if ((v = dra_ynode_get(n, "sampleRate"))) {
        if ((rc = get_pos_double(p, v, "spec.run.sampleRate", &s->sample_rate)))
            return rc;
        if (s->sample_rate > 1)
            return err_at(p, v, "spec.run.sampleRate", "must be in (0, 1]");
    }
    return DRA_OK;
}

typedef struct load_ud {
    sp_t *p;
    int ndocs;
} load_ud_t;

static int on_doc(const dra_ynode_t *root, void *ud_)
{
    load_ud_t *ud = ud_;
    sp_t *p = ud->p;
    dra_scenario_t *s = p->s;
    if (++ud->ndocs > 1)
        return err_at(p, root, "(document)", "a scenario file holds exactly one document");
    s->root = root;
    int rc = check_keys(p, root, "(top)", k_top);
    if (rc)
        return rc;
    const dra_ynode_t *v;
    const char *str;
    if (!(v = dra_ynode_get(root, "apiVersion")) || dra_ynode_string(v, p->file, "apiVersion", false, &str, NULL) ||
        strcmp(str, "drabench.dev/v1alpha1") != 0)
        return err_at(p, v ? v : root, "apiVersion", "must be drabench.dev/v1alpha1");
    if (!(v = dra_ynode_get(root, "kind")) || dra_ynode_string(v, p->file, "kind", false, &str, NULL) ||
        strcmp(str, "Scenario") != 0)
        return err_at(p, v ? v : root, "kind", "must be Scenario");
    if ((v = dra_ynode_get(root, "metadata"))) {
        if ((rc = check_keys(p, v, "metadata", k_meta)))
            return rc;
        const dra_ynode_t *x;
        if ((x = dra_ynode_get(v, "name")) && (rc = get_str(p, x, "metadata.name", &s->name)))
            return rc;
        if ((x = dra_ynode_get(v, "description")) && (rc = get_str(p, x, "metadata.description", &s->description)))
            return rc;
    }
    const dra_ynode_t *spec = dra_ynode_get(root, "spec");
    if (!spec)
        return err_at(p, root, "spec", "missing");
    if ((rc = check_keys(p, spec, "spec", k_spec)))
        return rc;
    if ((v = dra_ynode_get(spec, "seed")) && (rc = get_u64(p, v, "spec.seed", INT64_MAX, &s->seed)))
        return rc;
    if ((v = dra_ynode_get(spec, "release"))) {
        const char *rel[DRA_RELEASE_COUNT + 1];
        for (int i = 0; i < DRA_RELEASE_COUNT; i++)
            rel[i] = dra_alloc_release_name(dra_alloc_releases[i]);
        rel[DRA_RELEASE_COUNT] = NULL;
        int e;
        if ((rc = get_enum(p, v, "spec.release", rel, &e)))
            return rc;
        s->release = (int)dra_alloc_releases[e];
    }
    if ((v = dra_ynode_get(spec, "features"))) {
        if (!dra_ynode_is_map(v))
            return err_at(p, v, "spec.features", "expected a map of feature gate: bool");
        s->features = dra_arena_calloc(&s->arena, v->n ? v->n : 1, sizeof *s->features, 8);
        if (!s->features)
            return DRA_ENOMEM;
        s->nfeatures = v->n;
        for (uint32_t i = 0; i < v->n; i++) {
            char b[128];
            snprintf(b, sizeof b, "spec.features.%s", v->keys[i]->text);
            s->features[i].name = dra_arena_strdup(&s->arena, v->keys[i]->text);
            if ((rc = dra_ynode_bool(v->vals[i], p->file, b, &s->features[i].on, p->diag)))
                return rc;
        }
    }
    if (!(v = dra_ynode_get(spec, "cluster")))
        return err_at(p, spec, "spec", "missing field \"cluster\"");
    if ((rc = load_cluster(p, v)))
        return rc;
    if (!(v = dra_ynode_get(spec, "workload")))
        return err_at(p, spec, "spec", "missing field \"workload\"");
    if ((rc = load_workload(p, v)))
        return rc;
    if ((v = dra_ynode_get(spec, "placement"))) {
        static const char *const pl[] = {"first-fit", "best-fit", "spread", "random", NULL};
        int e;
        if ((rc = get_enum(p, v, "spec.placement", pl, &e)))
            return rc;
        s->placement = (dra_placement_t)e;
    }
    if ((v = dra_ynode_get(spec, "run")) && (rc = load_run(p, v)))
        return rc;
    return DRA_OK;
}

bool dra_scenario_check(const dra_scenario_t *s)
{
    if (!dra_alloc_release_valid(s->release) || (s->ngroups == 0 && s->nmanifests == 0) ||
        (s->ngroups && !s->groups) || s->nmix == 0 ||
        s->nmix > 256 || !s->mix || s->repetitions == 0 || !(s->sample_rate > 0) ||
        s->sample_rate > 1 || (unsigned)s->mode > DRA_WL_STEADY ||
        (unsigned)s->placement > DRA_PLACE_RANDOM || (unsigned)s->invariants > DRA_INV_OFF ||
        (s->nmanifests && !s->manifests) || !s->name || !s->file ||
        (s->taints.every && (!s->taints.hold || !s->taints.key || !s->taints.effect_raw)))
        return false;
    if (s->mode == DRA_WL_STEADY) {
        const dra_dist_t *l = &s->lifetime;
        if (!(s->rate > 0) || !isfinite(s->rate) || !(l->a > 0) || !isfinite(l->a) ||
            (unsigned)l->kind > DRA_DIST_UNIFORM ||
            (l->kind == DRA_DIST_UNIFORM && !(l->b >= l->a && isfinite(l->b))))
            return false;
    }
    for (uint32_t i = 0; i < s->nmix; i++) {
        const dra_scenario_mix_t *mx = &s->mix[i];
        if (!(mx->weight > 0) || !isfinite(mx->weight) ||
            (unsigned)mx->shape.kind >= DRA_SHAPE_NKINDS ||
            (mx->shape.kind == DRA_SHAPE_INLINE) != (mx->inline_node != NULL))
            return false;
        const dra_scenario_group_t *g = &mx->group;
        if (g->pods > DRA_GROUP_MAX_MEMBERS || (g->pods && (g->min_count < 1 || g->min_count > g->pods)) ||
            g->nclaims > DRA_GROUP_MAX_GCLAIMS || (g->nclaims && !g->claims) ||
            (g->pods && mx->shape.share > 0))
            return false;
    }
    return true;
}

int dra_scenario_load(dra_scenario_t *s, const char *buf, size_t len, const char *file, dra_diag_t *diag)
{
    memset(s, 0, sizeof *s);
    dra_arena_init(&s->arena, 0);
    dra_diag_clear(diag);
    s->file = dra_arena_strdup(&s->arena, file ? file : "<scenario>");
    if (!s->file)
        return DRA_ENOMEM;
    s->hash = dra_hash64(buf, len);
    s->seed = 1;
    s->release = DRA_RELEASE_DEFAULT;
    s->repetitions = 1;
    s->sample_rate = 0.01;
    s->lifetime.kind = DRA_DIST_EXP;
    sp_t p = {s, s->file, diag};
    load_ud_t ud = {&p, 0};
    dra_diag_list_t errs;
    dra_diag_list_init(&errs);
    int rc = dra_ydoc_parse(buf, len, s->file, &s->arena, on_doc, &ud, &errs);
    if (rc == DRA_EPARSE || rc == DRA_ELIMIT) {
        if (errs.count && diag)
            *diag = errs.items[0];
        else
            dra_diag_set(diag, rc, s->file, 0, 0, "%s", dra_strerror(rc));
    }
    dra_diag_list_fini(&errs);
    if (rc == DRA_OK && ud.ndocs == 0)
        rc = dra_diag_set(diag, DRA_EINVAL, s->file, 1, 1, "empty scenario");
    if (rc == DRA_OK && !s->name) {
        const char *base = strrchr(s->file, '/');
        base = base ? base + 1 : s->file;
        size_t l = strlen(base);
        if (l > 5 && strcmp(base + l - 5, ".yaml") == 0)
            l -= 5;
        /* a file name need not be UTF-8 nor free of control characters; the name reaches result
         * files, terminals and reports: kept losslessly as text (escape.h) */
        char *raw = dra_arena_strndup(&s->arena, base, l);
        char *txt = raw ? dra_esc_path(raw) : NULL;
        s->name = txt ? dra_arena_strdup(&s->arena, txt) : NULL;
        free(txt);
        if (!s->name)
            rc = DRA_ENOMEM;
    }
    DRA_ASSERT_INTERNAL(rc != DRA_OK || dra_scenario_check(s));
    if (rc != DRA_OK) {
        /* nothing half-loaded is left behind; the diagnostic must not point into the arena */
        if (diag && diag->file == s->file)
            diag->file = file ? file : "<scenario>";
        dra_scenario_fini(s);
    }
    return rc;
}

void dra_scenario_fini(dra_scenario_t *s)
{
    dra_arena_fini(&s->arena);
    memset(s, 0, sizeof *s);
}

size_t dra_scenario_builtins(const char **names, size_t max)
{
    size_t n = 0;
    for (const dra_embedded_t *e = dra_embedded_files; e->name; e++)
        if (strncmp(e->name, "scenarios/", 10) == 0) {
            if (n < max)
                names[n] = e->name + 10;
            n++;
        }
    return n;
}

int dra_scenario_load_named(dra_scenario_t *s, const char *name, dra_diag_t *diag)
{
    char emb[300];
    bool has_ext = strlen(name) > 5 && strcmp(name + strlen(name) - 5, ".yaml") == 0;
    snprintf(emb, sizeof emb, "scenarios/%s%s", name, has_ext ? "" : ".yaml");
    const dra_embedded_t *e = strchr(name, '/') ? NULL : dra_embedded_find(emb);
    if (e) {
        char file[320];
        snprintf(file, sizeof file, "<builtin>/%s", emb);
        return dra_scenario_load(s, e->data, e->len, file, diag);
    }
    char *buf = NULL;
    size_t len = 0;
    memset(s, 0, sizeof *s);
    int rc = dra_io_read_file(name, (size_t)64 << 20, &buf, &len, diag);
    if (rc) {
        if (!strchr(name, '/') && !has_ext)
            dra_diag_set(diag, DRA_ENOTFOUND, NULL, 0, 0,
                         "no built-in scenario or file named \"%s\" (drabench gen --list shows the built-ins)", name);
        return rc == DRA_EIO && !strchr(name, '/') && !has_ext ? DRA_ENOTFOUND : rc;
    }
    rc = dra_scenario_load(s, buf, len, name, diag);
    free(buf);
    return rc;
}

/* ---- building ------------------------------------------------------------------------------------- */

int dra_scenario_read_manifests(const dra_scenario_t *s, dra_model_t *m, dra_diag_list_t *errs)
{
    int rc = dra_manifest_read_paths(m, (char *const *)s->manifests, (int)s->nmanifests, errs);
    if (rc == DRA_OK)
        rc = dra_manifest_validate(m, errs);
    return rc;
}

int dra_scenario_build(const dra_scenario_t *s, dra_model_t *m, uint64_t seed, dra_scenario_built_t *out,
                       dra_diag_t *diag)
{
    DRA_ASSERT_INTERNAL(dra_scenario_check(s));
    memset(out, 0, sizeof *out);
    dra_gen_cluster_spec_t cs = {s->groups, s->ngroups};
    int rc = dra_gen_cluster_build(m, &cs, seed, &out->cluster, diag);
    if (rc)
        return rc;
    out->templates = calloc(s->nmix, sizeof *out->templates);
    out->gtemplates = calloc((size_t)s->nmix * DRA_GROUP_MAX_GCLAIMS, sizeof *out->gtemplates);
    out->wmix = calloc(s->nmix, sizeof *out->wmix);
    if (!out->templates || !out->wmix || !out->gtemplates) {
        dra_scenario_built_fini(out);
        return DRA_ENOMEM;
    }
    sp_t p = {(dra_scenario_t *)s, s->file, diag};
    for (uint32_t i = 0; i < s->nmix; i++) {
        const dra_scenario_mix_t *mx = &s->mix[i];
        if (mx->shape.kind == DRA_SHAPE_INLINE) {
            char path[64];
            snprintf(path, sizeof path, "spec.workload.mix[%u].template", i);
            rc = build_inline(&p, m, mx->inline_node, path, &out->templates[i]);
        } else {
            rc = dra_shape_build(m, &mx->shape, &out->templates[i], diag);
        }
        if (rc) {
            dra_scenario_built_fini(out);
            return rc;
        }
        out->wmix[i].shape = i;
        out->wmix[i].weight = mx->weight;
        out->wmix[i].share = mx->shape.share;
        for (uint32_t k = 0; k < mx->group.nclaims && !rc; k++) {
            const dra_scenario_gclaim_t *gc = &mx->group.claims[k];
            dra_claim_t **t = &out->gtemplates[i * DRA_GROUP_MAX_GCLAIMS + k];
            if (gc->shape.kind == DRA_SHAPE_INLINE) {
                char path[96];
                snprintf(path, sizeof path, "spec.workload.mix[%u].group.claims[%u].template", i, k);
                rc = build_inline(&p, m, gc->inline_node, path, t);
            } else {
                rc = dra_shape_build(m, &gc->shape, t, diag);
            }
        }
        if (rc) {
            dra_scenario_built_fini(out);
            return rc;
        }
    }
    dra_workload_spec_t *w = &out->workload;
    w->mode = s->mode;
    w->count = s->count;
    w->stop_after = s->stop_after;
    w->rate = s->rate;
    w->lifetime = s->lifetime;
    w->mix = out->wmix;
    w->nmix = s->nmix;
    return DRA_OK;
}

void dra_scenario_built_fini(dra_scenario_built_t *b)
{
    free(b->templates);
    free(b->gtemplates);
    free(b->wmix);
    memset(b, 0, sizeof *b);
}

const char *dra_placement_name(dra_placement_t p)
{
    static const char *const n[] = {"first-fit", "best-fit", "spread", "random"};
    return (unsigned)p < 4 ? n[p] : "?";
}
